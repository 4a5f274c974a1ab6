// Medusa's DML registers MikroORM entities globally; each test file boots a fresh app.
const { MetadataStorage } = require("@medusajs/framework/mikro-orm/core")

MetadataStorage.clear()

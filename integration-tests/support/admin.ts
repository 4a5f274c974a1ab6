import { MedusaContainer } from "@medusajs/framework/types"
import { ensureAdminUser } from "../app/seed/demo-store"

type Api = { post: (url: string, body?: unknown, config?: unknown) => Promise<{ data: any }> }

export const TEST_ADMIN = { email: "admin@payin.test", password: "payin-test-password" }

/** Creates an admin user and returns request headers carrying its bearer token. */
export async function adminHeaders(container: MedusaContainer, api: Api) {
  await ensureAdminUser(container, TEST_ADMIN.email, TEST_ADMIN.password)
  const { data } = await api.post("/auth/user/emailpass", TEST_ADMIN)
  return { headers: { authorization: `Bearer ${data.token}` } }
}

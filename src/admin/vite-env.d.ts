/// <reference types="vite/client" />
declare const __BACKEND_URL__: string | undefined

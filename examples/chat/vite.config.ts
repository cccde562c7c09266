import { fileURLToPath } from "node:url"
import react from "@vitejs/plugin-react"
import { defineConfig } from "vite"

// The page lives in page/ and is built to dist/, which the server serves.
export default defineConfig({
  root: fileURLToPath(new URL("./page", import.meta.url)),
  plugins: [react()],
  build: { outDir: fileURLToPath(new URL("./dist", import.meta.url)), emptyOutDir: true, chunkSizeWarningLimit: 1024 },
  logLevel: "warn",
})

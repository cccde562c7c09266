import { packageConfig } from "../../scripts/tsup.ts"

export default packageConfig()

/**
 * @hookline/testing/store: the run store conformance suite, apart from the main entry
 * point because it needs `@hookline/store` (an optional peer of this package).
 *
 * @since 0.1.0
 */
import * as StoreConformance_ from "./StoreConformance.js"
export { StoreConformance_ as StoreConformance }

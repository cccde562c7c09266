import { StoreConformance } from "@hookline/testing"
import { describe, it } from "vitest"
import { MemoryStore } from "../src/index.js"

describe("MemoryStore", () => {
  StoreConformance.register(it, async () => MemoryStore.make())
})

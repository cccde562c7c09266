// Hostile input for the codecs (issue 7): whatever comes in, decoding answers with a
// value or a DecodeFailed that names the path; it never throws and never pollutes a
// prototype.
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  type AgentError,
  AgentState,
  Codecs,
  Json,
  Message,
  ToolCall,
  type JsonValue,
} from "@hookline/core"
import * as Arb from "./arbitraries.js"

const polluted = () => ({} as Record<string, unknown>)["polluted"]

const state = AgentState.make({
  id: "s1",
  systemPrompt: "be brief",
  messages: [
    Message.user("hi"),
    Message.assistant("", [ToolCall.make({ id: "c1", name: "search", arguments: { q: "cats" } })]),
    Message.tool({ toolCallId: "c1", toolName: "search", content: "none" }),
  ],
  metadata: { run: 1 },
})

// The encoded state as untrusted JSON: plain mutable objects, as JSON.parse gives.
const encoded = (): any => JSON.parse(Codecs.toJson(Codecs.AgentState, state))

const failureOf = <A>(result: Result.Result<A, AgentError.DecodeFailed>): AgentError.DecodeFailed => {
  if (Result.isSuccess(result)) throw new Error("expected the decoding to fail")
  expect(result.failure._tag).toBe("DecodeFailed")
  expect(Object.isFrozen(result.failure)).toBe(true)
  return result.failure
}

const successOf = <A>(result: Result.Result<A, AgentError.DecodeFailed>): A => {
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

const nestedArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
const nestedObjects = (depth: number) => `{"a":`.repeat(depth) + "null" + "}".repeat(depth)
const indexPath = (depth: number) => "[0]".repeat(depth)

// Every codec of the module, for the properties.
const codecs: ReadonlyArray<readonly [string, Codecs.Codec<any, any>]> = [
  ["AgentState", Codecs.AgentState],
  ["HookContext", Codecs.HookContext],
  ["Message", Codecs.Message],
  ["ToolCall", Codecs.ToolCall],
  ["ToolExecution", Codecs.ToolExecution],
  ["Step", Codecs.Step],
  ["StopSignal", Codecs.StopSignal],
  ["AgentError", Codecs.AgentError],
  ["InferenceRequest", Codecs.InferenceRequest],
  ["InferenceResponse", Codecs.InferenceResponse],
  ["ModelOptions", Codecs.ModelOptions],
  ["ResponseFormat", Codecs.ResponseFormat],
  ["JsonValue", Codecs.JsonValue],
  ["Metadata", Codecs.Metadata],
]

// Any JavaScript value fast-check can make, the odd ones included.
const anything = fc.anything({
  maxDepth: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
})

// The answer of a decode: a value, or a well-formed DecodeFailed.
const isAnswer = (result: Result.Result<unknown, AgentError.DecodeFailed>): boolean =>
  Result.isSuccess(result)
  || (result.failure._tag === "DecodeFailed" && typeof result.failure.path === "string" && typeof result.failure.message === "string")

// `context.messages[3].role`, as DecodeFailed writes paths.
const formatPath = (keys: ReadonlyArray<string>): string =>
  keys.reduce((path, key) => (/^\d+$/.test(key) ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`), "")

// Every node of a JSON tree below the root, with its keys.
const nodesOf = (value: unknown, keys: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> => {
  if (typeof value !== "object" || value === null) return []
  return Object.keys(value).flatMap((key) => [[...keys, key], ...nodesOf((value as Record<string, unknown>)[key], [...keys, key])])
}

const setAt = (root: any, keys: ReadonlyArray<string>, value: unknown): void => {
  let node = root
  for (const key of keys.slice(0, -1)) node = node[key]
  node[keys[keys.length - 1]!] = value
}

describe("Codecs (hostile input)", () => {
  describe("deep nesting", () => {
    it("refuses 100,000 levels of arrays at depth 512, naming the path, without a stack overflow", () => {
      const error = failureOf(Codecs.fromJson(Codecs.JsonValue, nestedArrays(100_000)))
      expect(error.path).toBe(indexPath(512))
      expect(error.message).toContain("nested at most 512 deep")
    })

    it("refuses 100,000 levels of objects the same way", () => {
      const error = failureOf(Codecs.fromJson(Codecs.Metadata, nestedObjects(100_000)))
      expect(error.path).toBe(Array.from({ length: 512 }, () => "a").join("."))
      expect(error.message).toContain("512")
    })

    it("names the deep value's place inside a whole state: metadata, tool arguments", () => {
      const inMetadata = encoded()
      inMetadata.metadata = { deep: JSON.parse(nestedArrays(100_000)) }
      expect(failureOf(Codecs.decode(Codecs.AgentState, inMetadata)).path).toBe(`metadata.deep${indexPath(511)}`)
      const inArguments = encoded()
      inArguments.context.messages[1].toolCalls[0].arguments = { q: JSON.parse(nestedArrays(100_000)) }
      expect(failureOf(Codecs.decode(Codecs.AgentState, inArguments)).path).toBe(
        `context.messages[1].toolCalls[0].arguments.q${indexPath(511)}`,
      )
    })

    it("takes its bound from Json.maxDepth, the one the agent's boundaries import", () => {
      expect(Json.maxDepth).toBe(512)
      successOf(Codecs.fromJson(Codecs.JsonValue, nestedArrays(Json.maxDepth)))
      expect(failureOf(Codecs.fromJson(Codecs.JsonValue, nestedArrays(Json.maxDepth + 1))).path).toBe(indexPath(Json.maxDepth))
    })

    it("accepts JSON up to the limit", () => {
      const decoded = successOf(Codecs.fromJson(Codecs.JsonValue, nestedArrays(512)))
      expect(Codecs.toJson(Codecs.JsonValue, decoded)).toBe(nestedArrays(512))
    })

    it("gives a short message for a deep value where something else was expected", () => {
      const error = failureOf(Codecs.fromJson(Codecs.AgentState, nestedArrays(100_000)))
      expect(error.path).toBe("")
      expect(error.message.length).toBeLessThan(200)
      expect(error.message).toMatch(/^cannot decode the root: expected AgentState, got \[\[\[/)
    })
  })

  describe("huge strings", () => {
    const huge = "x".repeat(10 * 1024 * 1024)

    it("keeps a 10 MB string where a string belongs", () => {
      const input = encoded()
      input.context.systemPrompt = huge
      expect(successOf(Codecs.decode(Codecs.AgentState, input)).context.systemPrompt).toHaveLength(huge.length)
    })

    it("names a 10 MB string where it does not belong, with a short excerpt", () => {
      const input = encoded()
      input.execution.usage.inputTokens = huge
      const error = failureOf(Codecs.decode(Codecs.AgentState, input))
      expect(error.path).toBe("execution.usage.inputTokens")
      expect(error.message.length).toBeLessThan(200)
      expect(error.message).toContain(`got "xxxx`)
    })

    // The class of input the entry missed: one string past the bound anywhere in a
    // state (a rope: `repeat` allocates no 16 MB).
    it("refuses a string past maxStringLength at every string of a state, naming its path", () => {
      const long = "x".repeat(Json.maxStringLength + 1)
      const stringsOf = (value: unknown): Array<ReadonlyArray<string>> =>
        nodesOf(value).filter((keys) => typeof keys.reduce<any>((node, key) => node[key], value) === "string")
      fc.assert(
        fc.property(Arb.agentState({ maxMessages: 3, maxSteps: 2 }), (generated) => {
          const text = Codecs.toJson(Codecs.AgentState, generated)
          for (const keys of stringsOf(JSON.parse(text))) {
            const input = JSON.parse(text)
            setAt(input, keys, long)
            const error = failureOf(Codecs.decode(Codecs.AgentState, input))
            expect(error.path).toBe(formatPath(keys))
            expect(error.message.length).toBeLessThan(1_000)
            expect(Codecs.AgentState.is(input)).toBe(false)
          }
        }),
        { numRuns: 25 },
      )
    })

    it("names a 10 MB text that is not JSON with the parser's message, bounded", () => {
      const error = failureOf(Codecs.fromJson(Codecs.AgentState, `{"id": ${huge}`))
      expect(error.path).toBe("")
      expect(error.message.length).toBeLessThan(600)
    })
  })

  describe("wrong types", () => {
    it("names the path of a wrong type at every level of a state", () => {
      fc.assert(
        fc.property(Arb.agentState({ maxMessages: 3, maxSteps: 2 }), (generated) => {
          const text = Codecs.toJson(Codecs.AgentState, generated)
          for (const keys of nodesOf(JSON.parse(text))) {
            const input = JSON.parse(text)
            // NaN is wrong everywhere: not a string, not a finite number, not JSON.
            setAt(input, keys, Number.NaN)
            const error = failureOf(Codecs.decode(Codecs.AgentState, input))
            expect(error.path).toBe(formatPath(keys))
          }
        }),
        { numRuns: 25 },
      )
    })

    it("names the field of a record given where a list belongs, and of a list where a record belongs", () => {
      const listForRecord = encoded()
      listForRecord.context = []
      expect(failureOf(Codecs.decode(Codecs.AgentState, listForRecord)).path).toBe("context")
      const recordForList = encoded()
      recordForList.context.messages = { 0: { role: "user", content: "hi" } }
      expect(failureOf(Codecs.decode(Codecs.AgentState, recordForList)).path).toBe("context.messages")
    })
  })

  describe("extra keys", () => {
    it("drops unknown keys of the records and keeps the data of metadata and arguments", () => {
      const input = encoded()
      input.extra = 1
      input.context.extra = 2
      input.context.messages[0].extra = 3
      input.context.messages[1].toolCalls[0].extra = 4
      input.context.messages[1].toolCalls[0].arguments.extra = 5
      input.metadata.extra = 6
      const decoded = successOf(Codecs.decode(Codecs.AgentState, input))
      expect(Object.keys(decoded)).not.toContain("extra")
      expect(Object.keys(decoded.context)).not.toContain("extra")
      expect(Object.keys(decoded.context.messages.at(0)!)).toEqual(["role", "content"])
      const assistant = decoded.context.messages.at(1) as Message.AssistantMessage
      expect(Object.keys(assistant.toolCalls[0]!)).toEqual(["id", "name", "arguments"])
      expect(assistant.toolCalls[0]!.arguments).toEqual({ q: "cats", extra: 5 })
      expect(decoded.metadata).toEqual({ run: 1, extra: 6 })
    })
  })

  describe("__proto__, constructor and prototype keys", () => {
    const hostile = `{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}, "prototype": {"polluted": 3}}`

    it("keeps them as own data in metadata, tool arguments and response metadata, polluting nothing", () => {
      const input = encoded()
      input.metadata = JSON.parse(hostile)
      input.context.metadata = JSON.parse(hostile)
      input.context.messages[1].toolCalls[0].arguments = JSON.parse(hostile)
      const decoded = successOf(Codecs.decode(Codecs.AgentState, input))
      const call = (decoded.context.messages.at(1) as Message.AssistantMessage).toolCalls[0]!
      for (const data of [decoded.metadata, decoded.context.metadata, call.arguments as Record<string, JsonValue>]) {
        expect(Object.keys(data)).toEqual(["__proto__", "constructor", "prototype"])
        expect(Object.getPrototypeOf(data)).toBe(Object.prototype)
        expect(Object.getOwnPropertyDescriptor(data, "__proto__")?.value).toEqual({ polluted: 1 })
        expect((data as Record<string, unknown>)["polluted"]).toBeUndefined()
        expect(Object.isFrozen(Object.getOwnPropertyDescriptor(data, "__proto__")?.value)).toBe(true)
      }
      const response = successOf(Codecs.fromJson(
        Codecs.InferenceResponse,
        `{"text":"","toolCalls":[],"usage":{"inputTokens":0,"outputTokens":0},"finishReason":"stop","modelId":"m","metadata":${hostile}}`,
      ))
      expect(Object.keys(response.metadata)).toEqual(["__proto__", "constructor", "prototype"])
      expect(polluted()).toBeUndefined()
      expect(Object.prototype).not.toHaveProperty("polluted")
    })

    it("round-trips them through JSON text", () => {
      const input = encoded()
      input.metadata = JSON.parse(hostile)
      const decoded = successOf(Codecs.decode(Codecs.AgentState, input))
      const again = successOf(Codecs.fromJson(Codecs.AgentState, Codecs.toJson(Codecs.AgentState, decoded)))
      expect(Codecs.toJson(Codecs.Metadata, again.metadata)).toBe(JSON.stringify(JSON.parse(hostile)))
    })

    it("ignores them on records, whose prototype stays Object.prototype", () => {
      const input = encoded()
      Object.assign(input, JSON.parse(hostile))
      Object.assign(input.context.messages[0], JSON.parse(hostile))
      const decoded = successOf(Codecs.decode(Codecs.AgentState, input))
      expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype)
      expect(Object.keys(decoded)).toEqual(["id", "parentId", "context", "execution", "metadata"])
      expect(Object.getPrototypeOf(decoded.context.messages.at(0))).toBe(Object.prototype)
      expect((decoded as unknown as Record<string, unknown>)["polluted"]).toBeUndefined()
      expect(polluted()).toBeUndefined()
    })

    it("keeps them through the state's own functions and immer", () => {
      const metadata = JSON.parse(hostile) as Record<string, JsonValue>
      const made = AgentState.make({ metadata })
      const merged = AgentState.withMetadata(AgentState.make({ metadata: { a: 1 } }), metadata)
      const updated = AgentState.update(made, (draft) => {
        draft.metadata = { ...draft.metadata, tenant: "acme" }
      })
      for (const data of [made.metadata, merged.metadata, updated.metadata]) {
        expect(Object.hasOwn(data, "__proto__")).toBe(true)
        expect(Object.getPrototypeOf(data)).toBe(Object.prototype)
        expect(Object.isFrozen(data)).toBe(true)
      }
      expect(Object.keys(merged.metadata)).toEqual(["a", "__proto__", "constructor", "prototype"])
      expect(polluted()).toBeUndefined()
    })

    it("lets an immer recipe edit inside a __proto__ key, but not assign one (immer refuses to set a prototype)", () => {
      const made = AgentState.make({ metadata: JSON.parse(hostile) })
      const edited = AgentState.update(made, (draft) => {
        // The proxy's get reads the own key, and drafts it like any other.
        ;(draft.metadata as unknown as { __proto__: { polluted: number } }).__proto__.polluted = 9
      })
      expect(Object.getOwnPropertyDescriptor(edited.metadata, "__proto__")?.value).toEqual({ polluted: 9 })
      expect(Object.getOwnPropertyDescriptor(made.metadata, "__proto__")?.value).toEqual({ polluted: 1 })
      expect(() =>
        AgentState.update(AgentState.make(), (draft) => {
          ;(draft.metadata as Record<string, unknown>)["__proto__"] = { polluted: 4 }
        })
      ).toThrow(/Immer/)
      expect(polluted()).toBeUndefined()
    })
  })

  describe("numbers", () => {
    it("refuses 1e400 (Infinity once parsed), naming the path", () => {
      const text = Codecs.toJson(Codecs.AgentState, state).replace(`"run":1`, `"run":1e400`)
      const error = failureOf(Codecs.fromJson(Codecs.AgentState, text))
      expect(error.path).toBe("metadata.run")
      expect(error.message).toContain("expected a finite number, got Infinity")
    })

    it("refuses NaN and the infinities given as values", () => {
      const input = encoded()
      input.execution.usage.outputTokens = Number.NaN
      expect(failureOf(Codecs.decode(Codecs.AgentState, input)).path).toBe("execution.usage.outputTokens")
      expect(failureOf(Codecs.decode(Codecs.JsonValue, { x: [-Infinity] })).path).toBe("x[0]")
    })

    it("reads -0 as 0, which is what JSON text writes for it", () => {
      const decoded = successOf(Codecs.fromJson(Codecs.JsonValue, `{"x": -0}`)) as { readonly x: number }
      expect(Object.is(decoded.x, 0)).toBe(true)
      expect(Codecs.toJson(Codecs.JsonValue, decoded)).toBe(`{"x":0}`)
    })

    it("keeps numbers beyond the safe integers as the doubles JSON.parse gives", () => {
      expect(successOf(Codecs.fromJson(Codecs.JsonValue, "[9007199254740993, 1e308, 5e-324]"))).toEqual([9007199254740992, 1e308, 5e-324])
    })
  })

  describe("invalid UTF-16", () => {
    it("keeps lone surrogates in strings and keys, and writes them back escaped", () => {
      const text = `{"context":"\\ud800","\\udfff":"x\\ud83d"}`
      const decoded = successOf(Codecs.fromJson(Codecs.Metadata, text))
      expect(decoded["context"]).toBe("\ud800")
      expect(decoded["\udfff"]).toBe("x\ud83d")
      expect(Codecs.toJson(Codecs.Metadata, decoded)).toBe(text)
      const message = successOf(Codecs.fromJson(Codecs.Message, `{"role":"user","content":"\\udc00"}`))
      expect(message).toEqual(Message.user("\udc00"))
    })
  })

  describe("text that is not JSON", () => {
    it.each([
      ["empty", ""],
      ["cut short", `{"id": "s1",`],
      ["a trailing comma", "[1,]"],
      ["single quotes", "{'a': 1}"],
      ["NaN", "NaN"],
      ["undefined", "undefined"],
      ["a comment", `{"a": 1 /* no */}`],
      ["a byte order mark", "\uFEFF{}"],
      ["two documents", "{} {}"],
    ])("fails at the root with the parser's message: %s", (_, text) => {
      const error = failureOf(Codecs.fromJson(Codecs.AgentState, text))
      expect(error.path).toBe("")
      expect(error.message).toMatch(/^cannot decode the root: /)
    })

    it("fails at the root for input that is not text at all", () => {
      for (const input of [42, null, undefined, { a: 1 }, ["[]"]]) {
        const error = failureOf(Codecs.fromJson(Codecs.JsonValue, input as never))
        expect(error.path).toBe("")
        expect(error.message).toContain("expected JSON text (a string)")
      }
    })
  })

  describe("hostile JavaScript values", () => {
    it("names a getter that throws, at its own path", () => {
      const input = encoded()
      Object.defineProperty(input.metadata, "trap", { enumerable: true, get: () => {
        throw new Error("gotcha")
      } })
      const error = failureOf(Codecs.decode(Codecs.AgentState, input))
      expect(error.path).toBe("metadata.trap")
      expect(error.message).toContain("gotcha")
    })

    it("answers a proxy whose every trap throws, and a revoked proxy, with DecodeFailed", () => {
      const throwing = new Proxy({}, {
        get: () => {
          throw new Error("get")
        },
        ownKeys: () => {
          throw new Error("ownKeys")
        },
        getPrototypeOf: () => {
          throw new Error("getPrototypeOf")
        },
        has: () => {
          throw new Error("has")
        },
        getOwnPropertyDescriptor: () => {
          throw new Error("getOwnPropertyDescriptor")
        },
      })
      const { proxy: revoked, revoke } = Proxy.revocable({}, {})
      revoke()
      for (const hostile of [throwing, revoked]) {
        for (const [, codec] of codecs) expect(Result.isFailure(Codecs.decode(codec, hostile))).toBe(true)
        const input = encoded()
        input.metadata = { x: hostile }
        expect(failureOf(Codecs.decode(Codecs.AgentState, input)).path).toBe("metadata.x")
      }
    })

    it("refuses cycles, class instances, symbols, bigints, functions and holes, naming each", () => {
      const cycle: Record<string, unknown> = {}
      cycle["self"] = cycle
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ a: cycle }, "a.self"],
        [{ a: new Date(0) }, "a"],
        [{ a: new Map() }, "a"],
        [{ a: Symbol("s") }, "a"],
        [{ a: 1n }, "a"],
        [{ a: () => 1 }, "a"],
        [{ a: [1, , 3] }, "a[1]"],
        [{ a: new Uint8Array(2) }, "a"],
        [{ a: Object("boxed") }, "a"],
      ]
      for (const [input, path] of cases) expect(failureOf(Codecs.decode(Codecs.Metadata, input)).path).toBe(path)
    })

    it("answers an array claiming a huge length at once", () => {
      const error = failureOf(Codecs.decode(Codecs.JsonValue, { a: new Array(2 ** 32 - 1) }))
      expect(error.path).toBe("a")
      expect(error.message).toContain("the maxItems limit")
      // Within the limit, the first hole fails at once.
      expect(failureOf(Codecs.decode(Codecs.JsonValue, { a: new Array(2 ** 32 - 1) }, { maxItems: 2 ** 32 })).path).toBe("a[0]")
    })
  })

  describe("properties", () => {
    it("never throws for any JavaScript value, for every codec", () => {
      fc.assert(
        fc.property(anything, (input) => {
          for (const [, codec] of codecs) expect(isAnswer(Codecs.decode(codec, input))).toBe(true)
        }),
        { numRuns: 300 },
      )
    })

    it("never throws for any JSON value put anywhere in a state", () => {
      fc.assert(
        fc.property(Arb.agentState({ maxMessages: 3, maxSteps: 1 }), fc.jsonValue({ maxDepth: 3 }), fc.nat(), (generated, value, pick) => {
          const text = Codecs.toJson(Codecs.AgentState, generated)
          const nodes = nodesOf(JSON.parse(text))
          const input = JSON.parse(text)
          const keys = nodes[pick % nodes.length]!
          setAt(input, keys, value)
          const result = Codecs.decode(Codecs.AgentState, input)
          expect(isAnswer(result)).toBe(true)
          // A failure is at the replaced value or below it.
          if (Result.isFailure(result)) expect(result.failure.path.startsWith(formatPath(keys))).toBe(true)
        }),
        { numRuns: 300 },
      )
    })

    it("never throws for mutated JSON text of a state", () => {
      const edits = ["{", "}", "[", "]", `"`, ",", ":", "\\", "1e400", "-0", "null", `"\\ud800"`, `"__proto__":`, "", "\u0000"]
      fc.assert(
        fc.property(
          Arb.agentState({ maxMessages: 3, maxSteps: 1 }),
          fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom(...edits)), { minLength: 1, maxLength: 4 }),
          (generated, mutations) => {
            let text = Codecs.toJson(Codecs.AgentState, generated)
            for (const [at, cut, insert] of mutations) {
              const i = at % (text.length + 1)
              text = text.slice(0, i) + insert + text.slice(i + cut)
            }
            for (const [, codec] of codecs) expect(isAnswer(Codecs.fromJson(codec, text))).toBe(true)
          },
        ),
        { numRuns: 300 },
      )
    })

    it("never throws for any text", () => {
      fc.assert(
        fc.property(fc.oneof(fc.string(), fc.json(), fc.string({ unit: "binary" })), (text) => {
          for (const [, codec] of codecs) expect(isAnswer(Codecs.fromJson(codec, text))).toBe(true)
        }),
        { numRuns: 300 },
      )
      expect(polluted()).toBeUndefined()
    })
  })
})

describe("Json", () => {
  describe("excerpt", () => {
    it("renders small values as JSON", () => {
      expect(Json.excerpt({ a: [1, "x", null, true] })).toBe(`{"a":[1,"x",null,true]}`)
      expect(Json.excerpt(undefined)).toBe("undefined")
      expect(Json.excerpt(-0)).toBe("-0")
      expect(Json.excerpt(Number.NaN)).toBe("NaN")
    })

    it("cuts at the length and marks the cut", () => {
      expect(Json.excerpt("abcdefgh", 4)).toBe(`"abc…`)
      expect(Json.excerpt([1, 2, 3, 4, 5], 4)).toBe("[1,2…")
    })

    it("reads only what it shows of a huge or deep value", () => {
      expect(Json.excerpt("x".repeat(10 * 1024 * 1024), 200)).toHaveLength(201)
      expect(Json.excerpt(JSON.parse(nestedArrays(100_000)), 200)).toBe("[".repeat(200) + "…")
      // Counted, not timed: an array of 2^32 - 1 holes is read ten elements deep.
      let reads = 0
      const huge = new Proxy(new Array(2 ** 32 - 1), {
        get: (target, key, receiver) => {
          if (typeof key === "string" && /^\d+$/.test(key)) reads++
          return Reflect.get(target, key, receiver)
        },
      })
      expect(Json.excerpt(huge, 20)).toBe("[undefined,undefined…")
      expect(reads).toBeGreaterThan(0)
      expect(reads).toBeLessThan(20)
    })

    it("never throws: cycles, proxies, exotic values", () => {
      const cycle: Record<string, unknown> = { a: 1 }
      cycle["self"] = cycle
      expect(Json.excerpt(cycle)).toBe(`{"a":1,"self":[circular]}`)
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      expect(Json.excerpt({ p: proxy })).toBe(`{"p":…`)
      expect(Json.excerpt([1n, Symbol("s"), function named() {}, new Date(0)])).toBe(`[1n,Symbol(s),[function named],[object Date]]`)
      fc.assert(fc.property(anything, fc.nat({ max: 300 }), (value, max) => {
        expect(Json.excerpt(value, max).length).toBeLessThanOrEqual(max + 1)
      }))
    })
  })
})

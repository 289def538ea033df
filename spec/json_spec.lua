-- gpush.json's encoder, byte for byte: key order, number forms, escapes,
-- arrays against objects, the pretty layout and the refusals (the machine-
-- readable output of every command goes through it).
local json = require "gpush.json"

describe("gpush.json.encode", function()
  it("writes scalars as documented", function()
    assert.are.equal("42", json.encode(42))
    assert.are.equal("-7", json.encode(-7))
    assert.are.equal("3", json.encode(3.0)) -- integral floats as integers
    assert.are.equal("-0", json.encode(-0.0))
    assert.are.equal("0.10000000000000001", json.encode(0.1)) -- %.17g
    assert.are.equal("9007199254740992", json.encode(2 ^ 53)) -- not below 2^53: %.17g
    assert.are.equal("1.0000000000000001e+300", json.encode(1e300))
    assert.are.equal("true", json.encode(true))
    assert.are.equal("null", json.encode(nil))
    assert.are.equal("null", json.encode(json.null))
    assert.are.equal('"a\\"b\\\\c\\n\\t\\u0001"', json.encode('a"b\\c\n\t\1'))
    assert.are.equal('"plain"', json.encode("plain"))
  end)

  it("sorts keys, tells arrays from objects and keeps sparse tables as objects", function()
    assert.are.equal('{"a":1,"b":[1,2,{"c":true}],"z":"x"}', json.encode({ z = "x", b = { 1, 2, { c = true } }, a = 1 }))
    assert.are.equal("[]", json.encode({}))
    assert.are.equal("{}", json.encode(json.object()))
    assert.are.equal('{"1":"a","3":"c"}', json.encode({ [1] = "a", [3] = "c" }))
    assert.are.equal('{"1":2,"a":1}', json.encode({ a = 1, [1] = 2 }))
  end)

  it("indents two spaces per level when pretty", function()
    assert.are.equal('{\n  "a": [\n    1,\n    {\n      "b": []\n    }\n  ],\n  "c": {}\n}',
      json.encode({ a = { 1, { b = {} } }, c = json.object() }, true))
    assert.are.equal("[\n  \"x\"\n]", json.encode({ "x" }, true))
  end)

  it("encodes a table met twice (not nested in itself) both times", function()
    local shared = { 1 }
    assert.are.equal('{"a":[1],"b":[1]}', json.encode({ a = shared, b = shared }))
  end)

  it("refuses what JSON cannot hold, naming it", function()
    local loop = {}
    loop.self = loop
    for _, case in ipairs({
      { loop, "json: cannot encode a table that contains itself" },
      { { [true] = 1 }, "json: object keys must be strings, got boolean" },
      { { a = { 0 / 0 } }, "json: cannot encode " .. tostring(0 / 0) },
      { { math.huge }, "json: cannot encode inf" },
      { { f = print }, "json: cannot encode a function" },
    }) do
      local ok, err = pcall(json.encode, case[1], true)
      assert.is_false(ok)
      assert.are.equal(case[2], err)
    end
  end)

  it("round-trips through decode", function()
    local value = { name = "k", cycles = 11902.305445113847, launches = { 1, 2, 3 }, nested = { deep = { x = -0.5 } } }
    assert.are.same(value, json.decode(json.encode(value, true)))
  end)
end)

-- gpush.machine: the configuration crosses into C once, by the C machine's
-- field table; every field is a schema parameter and every parameter the
-- models read is a field, so a default lives only in the schema.
local config = require "gpush.config"
local core = require "gpush.core"
local machine = require "gpush.machine"
local schema = require "gpush.schema"

-- Schema parameters no C model reads: the product name (a string) and the
-- optional power group of the ML activity model (Lua only).
local function lua_only(path)
  return path == "gpu.name" or path:match("^power%.") ~= nil
end

local C_TYPE = { int = "int", number = "number", bool = "bool", enum = "enum" }

describe("gpush.machine", function()
  it("holds every schema parameter the models read, with the schema's type and values", function()
    local declared = {}
    for _, p in ipairs(schema.params) do
      declared[p[1]] = p
    end
    for _, d in ipairs(schema.derived) do
      declared[d[1]] = d
    end
    local fields = {}
    for _, f in ipairs(core.machine_fields()) do
      local p = declared[f.path]
      assert.is_not_nil(p, "C field '" .. f.path .. "' is no schema parameter")
      assert.are.equal(C_TYPE[p[2]], f.type, f.path)
      if f.type == "enum" then
        assert.are.same(p.values, f.values, f.path)
      end
      assert.is_nil(fields[f.path], "field listed twice: " .. f.path)
      fields[f.path] = true
    end
    for path in pairs(declared) do
      if not lua_only(path) then
        assert.is_true(fields[path] or false, "schema parameter '" .. path .. "' has no C field")
      end
    end
  end)

  it("reads each parameter's value from the configuration, unchanged", function()
    for _, name in ipairs { "gtx1080", "gtx660ti", "a100", "quadro-fx580", "hd7970" } do
      local cfg = config.load(name, { "l1.write_policy=write_back" })
      local flat, m = config.flatten(cfg), machine.of(cfg)
      for _, f in ipairs(core.machine_fields()) do
        assert.are.equal(flat[f.path], m:get(f.path), name .. " " .. f.path)
      end
    end
  end)

  it("refuses a configuration that lacks a parameter or gets one wrong, naming it", function()
    local cfg = config.load("gtx1080")
    cfg.l2.write_policy = "write_sometimes"
    assert.has_error(function() core.machine(cfg) end,
      "machine: parameter 'l2.write_policy' must be one of its values (gpush config describe), "
        .. "got 'write_sometimes'")
    cfg = config.load("gtx1080")
    cfg.ops.sfu = nil
    assert.has_error(function() core.machine(cfg) end,
      "machine: parameter 'ops.sfu.latency' is missing from the configuration "
        .. "(gpush.config.load gives every parameter)")
    cfg = config.load("gtx1080")
    cfg.l1.sectored = 1
    assert.has_error(function() core.machine(cfg) end, "machine: parameter 'l1.sectored' must be true or false, got 1")
    assert.has_error(function() core.machine(cfg):get("l1.nothing") end)
  end)

  it("derives the memory models' configuration: latencies in cycles, bytes per cycle, the unified L1", function()
    local a100 = config.load("a100")
    local t = machine.of(a100):timed(8, 16384)
    assert.are.equal(192 * 1024 - 8 * 16384, t.l1_bytes)
    assert.are.equal(40 * 1024 * 1024, t.l2_bytes)
    assert.are.equal(250 * 1410 / 1000, t.dram_latency) -- ns at the core clock
    assert.are.equal(1555.2 * 0.87 * 1e9 / (1410 * 1e6), t.dram_bytes_per_cycle) -- the achievable
    assert.is_false(t.cc1x)
    local g80 = machine.of(config.load("quadro-fx580")):memsim(1, 0)
    assert.are.equal(0, g80.l1_bytes) -- no caches below compute capability 2.0
    assert.are.equal(0, g80.l2_bytes)
    assert.is_true(g80.cc1x)
  end)

  it("is the one opcode-class map: pipelines and units from C", function()
    assert.are.equal("other", machine.PIPELINE.barrier)
    assert.are.equal("other", machine.PIPELINE.depbar)
    assert.is_nil(machine.PIPELINE.ld_global)
    local units = machine.unit_of(config.load("a100"))
    assert.are.equal("fma", units.fp32)
    assert.are.equal("fma", units.imad)
    assert.are.equal("int", units.int)
    assert.are.equal("other", units.branch)
    assert.are.equal("lsu", units.ld_const)
    assert.are.equal("lsu", units.st_shared)
    assert.is_true(machine.CLASS.atom_global.atomic and machine.CLASS.atom_global.cache)
    assert.is_true(machine.CLASS.st_shared.shared and machine.CLASS.st_shared.store)
    assert.is_false(machine.CLASS.ld_const.memory)
  end)

  it("reuses the machine while the configuration is unchanged and rebuilds it after a change", function()
    local cfg = assert(config.load("gtx660ti"))
    local first = machine.of(cfg)
    assert.are.equal(first, machine.of(cfg))
    local count = cfg.sm.count
    cfg.sm.count = count + 1
    local changed = machine.of(cfg)
    assert.are_not.equal(first, changed)
    assert.are.equal(count + 1, changed:get("sm.count"))
    cfg.sm.count = count
    assert.are.equal(count, machine.of(cfg):get("sm.count"))
    -- another table with the same values has a machine of its own
    assert.are_not.equal(first, machine.of(assert(config.load("gtx660ti"))))
  end)
end)

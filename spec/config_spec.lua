-- gpush.config: presets, inheritance, overrides, derived values, and every
-- error message with its position.
local config = require "gpush.config"
local schema = require "gpush.schema"
local helper = require "spec_helper"

local fixtures = "spec/fixtures/config/"

local function load_error(name, overrides)
  local cfg, err = config.load(name, overrides)
  assert.is_nil(cfg)
  return err
end

describe("gpush.config presets", function()
  it("ships the eleven presets", function()
    assert.are.same({ "a100", "gpumech-baseline", "gtx1080", "gtx480", "gtx660ti", "h100-pcie", "h100-sxm",
      "hd7970", "quadro-fx580", "rtx3070-measured", "rtx3070" }, config.presets())
  end)

  -- Optional parameters (the power model's) may be left to their defaults;
  -- a preset that gives one gives the whole group.
  it("gives every non-derived parameter in every preset, with a source comment", function()
    local core = require "gpush.core"
    -- a preset that starts with `preset: BASE` gives a parameter itself or
    -- through its base
    local function chain(name)
      local files = {}
      while name do
        local file = config.preset_dir() .. "/" .. name .. ".yaml"
        local doc, positions = core.yaml_load(file)
        local lines = {}
        for line in io.lines(file) do
          lines[#lines + 1] = line
        end
        files[#files + 1] = { name = name, positions = positions, lines = lines }
        name = doc.preset
      end
      return files
    end
    for _, name in ipairs(config.presets()) do
      local files = chain(name)
      local gives_power = false
      for _, f in ipairs(files) do
        gives_power = gives_power or f.positions["power.vf_low_mhz"] ~= nil
      end
      for _, p in ipairs(schema.params) do
        local given
        for _, f in ipairs(files) do
          if f.positions[p[1]] and not given then
            given = f
          end
        end
        if not p.optional or gives_power then
          assert.is_not_nil(given, name .. " does not give " .. p[1])
          local pos = given.positions[p[1]]
          assert.is_truthy(given.lines[pos.line]:find("#", 1, true), given.name .. ":" .. pos.line
            .. " has no source comment")
        end
      end
      assert.is_not_nil(config.load(name))
    end
  end)

  it("resolves GPUMech's Table I baseline", function()
    local cfg = assert(config.load("gpumech-baseline"))
    assert.are.equal(16, cfg.sm.count)
    assert.are.equal(1024, cfg.sm.max_threads)
    assert.are.equal(32, cfg.l1.mshrs)
    assert.are.equal(25, cfg.l1.latency)
    assert.are.equal(120, cfg.l2.latency)
    assert.are.equal(768, cfg.l2.size_kb)
    assert.are.equal(192.0, cfg.dram.bandwidth_gbs)
    assert.are.equal(300, cfg.dram.latency_ns)
    assert.are.equal(25, cfg.ops.fp32.latency)
  end)

  it("derives the published DRAM bandwidths", function()
    local expected = { gtx660ti = 144.192, gtx480 = 177.408, gtx1080 = 320.0, rtx3070 = 448.064, hd7970 = 264.0,
      a100 = 1555.2, ["quadro-fx580"] = 25.6 }
    for name, gbs in pairs(expected) do
      assert.is_near(gbs, config.load(name).dram.bandwidth_gbs, 1e-9)
    end
  end)

  it("matches the Accel-Sim RTX 3070 configuration", function()
    local cfg = config.load("rtx3070")
    assert.are.equal(46, cfg.sm.count)
    assert.are.equal(1132, cfg.clock.core_mhz)
    assert.are.equal(39, cfg.l1.latency)
    assert.are.equal(187, cfg.l2.latency)
    assert.are.equal(16, cfg.dram.channels)
    assert.are.equal(4, cfg.sm.schedulers)
  end)

  it("has no L1 or L2 on the compute capability 1.1 Quadro", function()
    local cfg = config.load("quadro-fx580")
    assert.are.equal(0, cfg.l1.size_kb)
    assert.are.equal(0, cfg.l2.size_kb)
    assert.is_true(cfg.gpu.compute_capability < 2)
  end)
end)

describe("gpush.config loading", function()
  it("applies defaults < preset chain < file < overrides", function()
    local cfg = assert(config.load(fixtures .. "inherit2.yaml", { "l1.mshrs=128" }))
    assert.are.equal(14, cfg.sm.count)            -- inherit2.yaml
    assert.are.equal(128, cfg.l1.mshrs)           -- override over inherit.yaml's 64
    assert.are.equal(48, cfg.sm.shared_kb)        -- gtx660ti
    assert.are.equal("inherit2", cfg._name)
    assert.are.equal(3, #cfg._sources)
    assert.matches("gtx660ti%.yaml$", cfg._sources[1])
    assert.matches("inherit2%.yaml$", cfg._sources[3])
  end)

  it("solves the memory clock from a bandwidth given in a file or an override", function()
    local cfg = config.load(fixtures .. "inherit.yaml")
    assert.is_near(96, cfg.dram.bandwidth_gbs, 1e-9)
    assert.is_near(1000, cfg.clock.mem_mhz, 1e-9)   -- 96 GB/s / (24 B x 4)
    cfg = config.load("gtx660ti", { ["dram.bandwidth_gbs"] = 192 })
    assert.is_near(2000, cfg.clock.mem_mhz, 1e-9)
    cfg = config.load("gtx660ti", { "clock.mem_mhz=751" })
    assert.is_near(72.096, cfg.dram.bandwidth_gbs, 1e-9)
  end)

  it("derives threads per SM from warps", function()
    assert.are.equal(48 * 32, config.load("gtx660ti", { "sm.max_warps=48" }).sm.max_threads)
  end)

  it("reads overrides with the YAML 1.2 scalar rules", function()
    local cfg = config.load(nil, { "l1.sectored=true", "gpu.name=My GPU", "sm.count=0x10", "l1.size_kb=1.5e1" })
    assert.is_true(cfg.l1.sectored)
    assert.are.equal("My GPU", cfg.gpu.name)
    assert.are.equal(16, cfg.sm.count)
    assert.are.equal(15.0, cfg.l1.size_kb)
  end)

  it("hashes resolved values stably and sensitively", function()
    local a, b = config.load("gtx480"), config.load("gtx480")
    assert.are.equal(config.hash(a), config.hash(b))
    assert.matches("^%x+$", config.hash(a))
    assert.are.equal(16, #config.hash(a))
    assert.are_not.equal(config.hash(a), config.hash(config.load("gtx480", { "l1.mshrs=33" })))
  end)

  it("flattens to dotted paths including derived values", function()
    local flat = config.flatten(config.load("gtx660ti"))
    assert.are.equal(7, flat["sm.count"])
    assert.are.equal(2048, flat["sm.max_threads"])
    assert.is_near(144.192, flat["dram.bandwidth_gbs"], 1e-9)
  end)

  -- config.load hands over its table as checked (config.check_token set):
  -- so the table must be what a full check of the same values writes back
  it("resolves every value as the full check writes it back", function()
    local function copy(t)
      local out = {}
      for k, v in pairs(t) do
        out[k] = type(v) == "table" and copy(v) or v
      end
      return out
    end
    local function same(a, b, path)
      for k, v in pairs(a) do
        local w = b[k]
        if type(v) == "table" then
          same(v, w, path .. k .. ".")
        else
          assert(v == w and math.type(v) == math.type(w) and (v ~= 0 or 1 / v == 1 / w),
            ("%s%s: %s vs %s"):format(path, k, tostring(v), tostring(w)))
        end
      end
    end
    local cases = {}
    for _, name in ipairs(config.presets()) do
      cases[#cases + 1] = { name }
    end
    cases[#cases + 1] = { fixtures .. "inherit2.yaml", { "l1.mshrs=128", "sm.count=16.0", "dram.bandwidth_gbs=96" } }
    cases[#cases + 1] = { nil, { ["clock.mem_mhz"] = 751.0, ["sm.max_warps"] = 48.0 } }
    for _, case in ipairs(cases) do
      local cfg = assert(config.load(case[1], case[2]))
      local token = config.check_token(cfg)
      assert.is_table(token)
      local checked = copy(cfg) -- a table the check has not seen: checked in full
      assert.is_nil(config.check_token(checked))
      config.check(checked)
      same(cfg, checked, "")
      same(checked, cfg, "")
      config.check(cfg)
      assert.are.equal(token, config.check_token(cfg))
    end
  end)

  it("refuses a schema default the check would convert", function()
    local declare = schema.declarer({})
    assert.has_error(function() declare { "x.n", "int", unit = "", desc = "d", default = 4.0 } end,
      "schema: parameter x.n: default 4.0 is no int")
    assert.has_error(function() declare { "x.f", "number", unit = "", desc = "d", default = 0 / 0 } end)
    assert.has_error(function() declare { "x.e", "enum", values = { "a" }, unit = "", desc = "d", default = "b" } end)
    assert.has_error(function() declare { "x.b", "bool", unit = "", desc = "d", default = 1 } end)
    assert.are.equal(4, declare({ "x.n", "int", unit = "", desc = "d", default = 4 }).default)
    assert.is_nil(declare({ "x.o", "number", unit = "", desc = "d" }).default) -- a model's input may have none
    assert.has_error(function() schema.declarer({}, nil, true) { "x.o", "number", unit = "", desc = "d" } end,
      "schema: parameter x.o: default nil is no number")
  end)

  it("raises on misuse", function()
    assert.has_error(function() config.load(42) end,
      "gpush.config.load: expected a preset name or a path, got number")
    assert.has_error(function() config.load("gtx480", "l1.mshrs=3") end,
      "gpush.config.load: overrides must be a table, got string")
  end)
end)

describe("gpush.config errors", function()
  local cases = {
    { "out_of_range", "out_of_range.yaml:3:10: parameter 'sm.count' of 'out_of_range': expected an integer from 1 to 1024, got 0" },
    { "wrong_type", "wrong_type.yaml:2:13: parameter 'l1.sectored' of 'wrong_type': expected true or false, got 'yes'" },
    { "unknown_key", "unknown_key.yaml:3:3: unknown parameter 'sm.max_warp' in 'unknown_key' (did you mean 'sm.max_warps'?)" },
    { "group_scalar", "group_scalar.yaml:1:5: 'sm' of 'group_scalar' is a group of parameters (sm.count, ...): expected a mapping, got 16" },
    { "scalar_mapping", "scalar_mapping.yaml:3:5: parameter 'sm.count' of 'scalar_mapping': expected an integer from 1 to 1024, got a mapping" },
    { "bad_enum", "bad_enum.yaml:2:17: parameter 'l2.write_policy' of 'bad_enum': expected one of 'write_back', 'write_through', got 'lazy'" },
    { "syntax", "syntax.yaml:3:1: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence" },
    { "missing_preset", "missing_preset.yaml:1:9: unknown preset 'gtx48' (did you mean 'gtx480'?); shipped presets: a100, gpumech-baseline, gtx1080, gtx480, gtx660ti, h100-pcie, h100-sxm, hd7970, quadro-fx580, rtx3070-measured, rtx3070" },
    { "cycle_a", "cycle_b.yaml:1:9: preset cycle: cycle_a -> cycle_b -> cycle_a" },
    { "both_derived", "both_derived.yaml:4:3: 'dram.bandwidth_gbs' and 'clock.mem_mhz' are both given in 'both_derived'; dram.bandwidth_gbs is derived from clock.mem_mhz, give one of them" },
    { "derived_readonly", "derived_readonly.yaml:2:3: parameter 'sm.max_threads' of 'derived_readonly' is derived (Resident threads per SM at most: sm.max_warps x sm.warp_size) and cannot be set; set sm.max_warps instead" },
    { "not_a_mapping", "not_a_mapping.yaml:1:1: configuration 'not_a_mapping': expected a mapping of parameters, got a list" },
  }
  for _, case in ipairs(cases) do
    it("reports " .. case[1], function()
      assert.are.equal(fixtures .. case[2], load_error(fixtures .. case[1] .. ".yaml"))
    end)
  end

  it("reports a missing file and a missing preset", function()
    assert.are.equal("/nonexistent/gpu.yaml: cannot open: No such file or directory",
      load_error("/nonexistent/gpu.yaml"))
    assert.matches("^unknown preset 'titan'; shipped presets: a100, ", load_error("titan"))
  end)

  it("reports bad overrides with the -p text", function()
    assert.are.equal("-p sm.count=abc: parameter 'sm.count' of 'gtx480': expected an integer from 1 to 1024, got 'abc'",
      load_error("gtx480", { "sm.count=abc" }))
    assert.are.equal("-p l1.mshr=4: unknown parameter 'l1.mshr' in 'gtx480' (did you mean 'l1.mshrs'?)",
      load_error("gtx480", { "l1.mshr=4" }))
    assert.are.equal("-p dram.bandwidth_gbs=-5: parameter 'dram.bandwidth_gbs' of 'gtx480': expected a number from 0.001 to 1000000, got -5",
      load_error("gtx480", { "dram.bandwidth_gbs=-5" }))
    assert.are.equal("-p nonsense: expected key=value (override 1)", load_error("gtx480", { "nonsense" }))
    assert.are.equal("-p l1.sectored=1: parameter 'l1.sectored' of 'gtx480': expected true or false, got 1",
      load_error("gtx480", { ["l1.sectored"] = 1 }))
  end)

  it("rejects a bandwidth that would push the memory clock out of range", function()
    assert.are.equal("-p dram.bandwidth_gbs=1e5: parameter 'clock.mem_mhz' of 'gtx660ti': expected a number from 1 to 20000, got 1041666.6666666666",
      load_error("gtx660ti", { "dram.bandwidth_gbs=1e5" }))
  end)
end)

describe("gpush config command", function()
  local run = helper.gpush_run

  it("describes every parameter with its unit and range", function()
    local code, out = run { "config", "describe" }
    assert.are.equal(0, code)
    for _, p in ipairs(schema.params) do
      assert.is_truthy(out:find(p[1], 1, true), p[1])
    end
    assert.matches("sm%.count%s+int%s+SMs%s+16%s+1%.%.1024", out)
    assert.matches("dram%.bandwidth_gbs%s+number%s+GB/s", out)
  end)

  it("lists the presets with their derived bandwidth", function()
    local code, out = run { "config", "list" }
    assert.are.equal(0, code)
    assert.matches("gtx660ti%s+NVIDIA GeForce GTX 660 Ti%s+7%s+915%s+144%.2", out)
  end)

  it("shows a resolved preset as YAML that loads back", function()
    local code, out = run { "config", "show", "gtx480", "-p", "l1.mshrs=48" }
    assert.are.equal(0, code)
    assert.matches("\nl1:\n", out, 1, true)
    assert.matches("\n  mshrs: 48 +# entries\n", out)
    assert.matches("#   dram.bandwidth_gbs = 177.408 GB/s", out, 1, true)
    local file = helper.write_temp(out, ".yaml")
    local cfg = assert(config.load(file))
    assert.are.equal(48, cfg.l1.mshrs)
    assert.are.equal(config.hash(config.load("gtx480", { "l1.mshrs=48" })), config.hash(cfg))
    os.remove(file)
  end)

  it("shows JSON with the hash and flat values", function()
    local code, out = run { "config", "show", "gtx660ti", "--json" }
    assert.are.equal(0, code)
    local doc = require("gpush.json").decode(out)
    assert.are.equal("gtx660ti", doc.name)
    assert.are.equal(config.hash(config.load("gtx660ti")), doc.hash)
    assert.are.equal(7, doc.values["sm.count"])
  end)

  it("diffs two presets", function()
    local code, out = run { "config", "diff", "gtx480", "gtx660ti" }
    assert.are.equal(0, code)
    assert.matches("parameter%s+gtx480%s+gtx660ti%s+unit", out)
    assert.matches("sm%.count%s+15%s+7%s+SMs", out)
    code, out = run { "config", "diff", "gtx480", "gtx480" }
    assert.are.equal("'gtx480' and 'gtx480' resolve to the same values\n", out)
  end)

  it("exits 1 with the message on a bad configuration and 2 on misuse", function()
    local code, _, err = run { "config", "show", "gtx480", "-p", "sm.count=0" }
    assert.are.equal(1, code)
    assert.are.equal("gpush config: -p sm.count=0: parameter 'sm.count' of 'gtx480': expected an integer from 1 to 1024, got 0\n", err)
    code, _, err = run { "config", "frob" }
    assert.are.equal(2, code)
    assert.matches("gpush config: unknown action 'frob'", err, 1, true)
    code = run { "config", "show" }
    assert.are.equal(2, code)
    code = run { "config", "show", "gtx480", "--bogus" }
    assert.are.equal(2, code)
  end)

  it("tells an unchanged configuration by value, number subtype and the sign of zero (C walk)", function()
    local core = require "gpush.core"
    -- a.b and c: the table at {"a"} holds b, the root holds c
    local groups = { { "a", leaves = { "b" } }, { leaves = { "c" } } }
    local values = { 0.0, "x" }
    local function unchanged(t)
      return core.config_unchanged(t, groups, values)
    end
    assert.is_true(unchanged({ a = { b = 0.0 }, c = "x", extra = 1 }))
    assert.is_false(unchanged({ a = { b = -0.0 }, c = "x" }))
    assert.is_false(unchanged({ a = { b = 0 }, c = "x" }))
    assert.is_false(unchanged({ a = { b = "0" }, c = "x" }))
    assert.is_false(unchanged({ a = { b = 0.0 }, c = "y" }))
    assert.is_false(unchanged({ a = 0.0, c = "x" })) -- a non-table on the way reads as nil
    assert.is_false(unchanged({ c = "x" }))
    values[1] = 0 / 0
    assert.is_false(unchanged({ a = { b = values[1] }, c = "x" })) -- NaN is never the same
    -- indexing honours metamethods, as the Lua walk did
    values[1] = 2
    assert.is_true(unchanged(setmetatable({ c = "x" }, { __index = { a = { b = 2 } } })))
  end)
end)

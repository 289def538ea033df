-- gpush.experiment: sweep order, per-kernel caching, slices, workers,
-- failures, progress, provenance, Ctrl-C.
local helper = require "spec_helper"
local core = require "gpush.core"
local experiment = require "gpush.experiment"
local results = require "gpush.results"

-- A Lua model that records its calls: cycles = warps * 10 + mshrs, plus the
-- prepared value and what it found in the shared per-kernel cache.
local function counting_model(name, log)
  return {
    name = name,
    columns = { "cycles", "prepared", "cache_seen" },
    prepare = function(kernel, base, cache, ctx)
      log.prepare[#log.prepare + 1] = name .. ":" .. ctx.kernel
      cache.visits = (cache.visits or 0) + 1
      return kernel:info().kernel .. "@" .. base.sm.max_warps
    end,
    run = function(kernel, cfg, prepared, cache)
      log.run = log.run + 1
      return { cycles = cfg.sm.max_warps * 10 + cfg.l1.mshrs, prepared = prepared, cache_seen = cache.visits }
    end,
  }
end

local function toy_sweep(log, extra)
  local def = {
    name = "toy", base = { preset = "gtx660ti", overrides = { "clock.core_mhz=1000" } },
    parameters = { { path = "sm.max_warps", values = { 16, 32 }, column = "warps" },
      { path = "l1.mshrs", values = { 8, 64, 16 }, column = "mshrs" } },
    workloads = { "suite:sfu_heavy", "suite:stream_triad" },
    models = { counting_model("m1", log), counting_model("m2", log) },
  }
  for k, v in pairs(extra or {}) do
    def[k] = v
  end
  return experiment.new(def)
end

local function new_log()
  return { prepare = {}, run = 0 }
end

describe("gpush.experiment", function()
  it("orders rows kernel, model, then points with the first parameter slowest", function()
    local log = new_log()
    local r = assert(experiment.run(toy_sweep(log), { quiet = true, command = "test" }))
    assert.are.equal(24, #r.rows)
    local seen = {}
    for i, row in ipairs(r.rows) do
      seen[i] = ("%s/%s/%d/%d"):format(row.kernel, row.model, row.warps, row.mshrs)
    end
    assert.are.same({
      "sfu_heavy/m1/16/8", "sfu_heavy/m1/16/64", "sfu_heavy/m1/16/16",
      "sfu_heavy/m1/32/8", "sfu_heavy/m1/32/64", "sfu_heavy/m1/32/16",
    }, { table.unpack(seen, 1, 6) })
    assert.are.equal("sfu_heavy/m2/16/8", seen[7])
    assert.are.equal("stream_triad/m1/16/8", seen[13])
    assert.are.equal("stream_triad/m2/32/16", seen[24])
    assert.are.equal(32 * 10 + 16, r.rows[24].cycles)
    assert.are.same({ "workload", "kernel", "launch", "model", "warps", "mshrs", "cycles", "prepared", "cache_seen",
      "config_hash", "trace_hash" }, r.columns)
    -- explicit points keep their order
    local explicit = experiment.new { name = "pts", base = "gtx660ti", workloads = "suite:sfu_heavy",
      models = { counting_model("m", new_log()) },
      parameters = { { path = "l1.mshrs", column = "mshrs" } },
      points = { { ["l1.mshrs"] = 64 }, { ["l1.mshrs"] = 8 }, { ["l1.mshrs"] = 32 } } }
    local e = assert(experiment.run(explicit, { quiet = true }))
    assert.are.same({ 64, 8, 32 }, (e:column("mshrs")))
    assert.are.same({ 640 + 64, 640 + 8, 640 + 32 }, (e:column("cycles")))
  end)

  it("prepares each kernel once per model, on the base configuration, and shares one cache per kernel", function()
    local log = new_log()
    local r = assert(experiment.run(toy_sweep(log), { quiet = true }))
    assert.are.same({ "m1:sfu_heavy", "m2:sfu_heavy", "m1:stream_triad", "m2:stream_triad" }, log.prepare)
    assert.are.equal(24, log.run)
    -- m2's runs see both models' visits to the kernel's cache; a new kernel starts empty
    assert.are.equal(1, r.rows[1].cache_seen)
    assert.are.equal(2, r.rows[7].cache_seen)
    assert.are.equal(1, r.rows[13].cache_seen)
    assert.are.equal("sfu_heavy@64", r.rows[1].prepared) -- the preset's 64 warps, not the point's 16
  end)

  it("slices task ranges into contiguous, disjoint, covering runs", function()
    for _, n in ipairs { 1, 2, 3, 7, 24, 30 } do
      local covered, last_hi = 0, 0
      for i = 1, n do
        local lo, hi = experiment.slice(1, 24, i, n)
        assert.are.equal(last_hi + 1, lo)
        covered = covered + math.max(0, hi - lo + 1)
        last_hi = math.max(last_hi, hi)
      end
      assert.are.equal(24, covered)
      assert.are.equal(24, last_hi)
    end
    assert.are.same({ 9, 16 }, { experiment.slice(1, 24, 2, 3) })
  end)

  it("says in the log what each model cost, a point and a kernel's preparation, never in the outputs", function()
    local text = {}
    local stream = { write = function(_, ...) for _, part in ipairs { ... } do text[#text + 1] = part end end,
      flush = function() end }
    local log = new_log()
    local r = assert(experiment.run(toy_sweep(log), { jobs = 2, progress_stream = stream, tty = false }))
    local said = table.concat(text)
    assert.matches("toy: CPU time per model (every worker's, summed):", said, 1, true)
    -- 2 kernels x 6 points a model; each kernel prepared once in every worker that runs it
    local prepared = tonumber(said:match("\n  m1 +[%d.]+ s over 12 points %([%d.]+ ms a point[^)]*%); (%d+) kernel preparations"))
    assert.is_true(prepared >= 2 and prepared <= 4, said)
    assert.matches("\n  m2 +[%d.]+ s over 12 points", said)
    assert.is_nil(r:to_json():find("CPU time", 1, true))
    -- by hand: the costliest model is the reference
    assert.are.equal("s: CPU time per model (every worker's, summed):\n"
      .. "  gpumech             0.50 s over 100 points (5.00 ms a point, 20x cheaper than sim's); 4 kernel preparations"
      .. " 0.20 s (50.0 ms each)\n"
      .. "  sim                10.00 s over 100 points (100.00 ms a point)\n",
      experiment.cost_text("s", { { model = "gpumech", prepare_s = 0.2, prepares = 4, run_s = 0.5, runs = 100 },
        { model = "sim", prepare_s = 0, prepares = 0, run_s = 10, runs = 100 } }))
    -- a preparation's parts, as the model named them, and the rest; the
    -- reports' profiles with their memory replays
    assert.are.equal("s: CPU time per model (every worker's, summed):\n"
      .. "  gpumech             0.50 s over 100 points (5.00 ms a point); 4 kernel preparations 0.20 s"
      .. " (50.0 ms each: memory replay 30.0, selection 12.5, the rest 7.5)\n"
      .. "  reports' profiles    0.08 s for 4 kernels (20.0 ms each: the baseline's memory replay 15.0, which a"
      .. " preparation on that point reuses; the rest 5.0)\n",
      experiment.cost_text("s", { { model = "gpumech", prepare_s = 0.2, prepares = 4, run_s = 0.5, runs = 100,
        parts = { { name = "memory replay", s = 0.12 }, { name = "selection", s = 0.05 } } } },
        { s = 0.08, replay_s = 0.06, n = 4 }))
  end)

  it("splits GPUMech's preparation in the log: the memory replay, the selection with the bound counts", function()
    local text = {}
    local stream = { write = function(_, ...) for _, part in ipairs { ... } do text[#text + 1] = part end end,
      flush = function() end }
    local sweep = experiment.new { name = "prep", base = "gtx660ti", workloads = { "suite:sfu_heavy" },
      parameters = { { path = "dram.bandwidth_gbs", values = { 96, 192 } } },
      models = { experiment.models.gpumech { policy = "rr" }, experiment.models.gpumech { policy = "gto" } } }
    assert(experiment.run(sweep, { jobs = 1, progress_stream = stream, tty = false }))
    local said = table.concat(text)
    -- no reports, so no kernel profile replays first: the preparation does
    assert.matches("\n  gpumech%-rr [^\n]*; 1 kernel preparations [%d.]+ s %([%d.]+ ms each: memory replay [%d.]+, "
      .. "selection %+ bound counts %(one walk%) [%d.]+, the rest [%d.]+%)\n", said)
    -- gpumech-gto shares gpumech-rr's preparation (the kernel's cache): nothing named
    assert.matches("\n  gpumech%-gto [^\n]*; 1 kernel preparations [%d.]+ s %([%d.]+ ms each%)\n", said)
  end)

  it("gives --jobs 2 the same bytes as --jobs 1 (GPUMech RR and GTO)", function()
    local function sweep()
      return experiment.new { name = "eq", base = "gtx660ti", workloads = { "suite:sfu_heavy", "suite:stream_triad" },
        parameters = { { path = "sm.max_warps", values = { 16, 64 } }, { path = "dram.bandwidth_gbs", values = { 96, 192 } } },
        models = { experiment.models.gpumech { policy = "rr" }, experiment.models.gpumech { policy = "gto" } } }
    end
    local one = assert(experiment.run(sweep(), { jobs = 1, quiet = true, command = "same" }))
    local two = assert(experiment.run(sweep(), { jobs = 2, quiet = true, command = "same" }))
    local three = assert(experiment.run(sweep(), { jobs = 3, quiet = true, command = "same" }))
    assert.are.equal(16, #one.rows)
    assert.are.equal(one:to_csv(), two:to_csv())
    assert.are.equal(one:to_json(), two:to_json())
    assert.are.equal(one:to_json(), three:to_json())
    local row = one.rows[#one.rows] -- stream_triad
    assert.are.equal("stream_triad", row.kernel)
    assert.is_true(row.cycles > 0 and row.achieved_gbs > 0)
    local stack_sum = 0
    for _, name in ipairs(require("gpush.gpumech").STACK) do
      stack_sum = stack_sum + row["cpi_" .. name:lower()]
    end
    assert.are.near(row.cpi, stack_sum, 1e-9 * row.cpi)
    -- achieved bandwidth never above the configured peak
    for _, r in ipairs(one.rows) do
      assert.is_true(r.dram_util <= 1, r.kernel)
    end
  end)

  it("reports a failing point with its parameters and keeps the other rows", function()
    local flaky = { name = "flaky", run = function(_, cfg)
      if cfg.l1.mshrs == 64 and cfg.sm.max_warps == 32 then
        error("no result at 64 MSHRs", 0)
      end
      return { cycles = cfg.l1.mshrs }
    end }
    local sweep = toy_sweep(new_log(), { models = { flaky }, workloads = { "suite:sfu_heavy" } })
    for _, jobs in ipairs { 1, 2 } do
      local r = assert(experiment.run(sweep, { jobs = jobs, quiet = true }))
      assert.are.equal(5, #r.rows)
      assert.are.equal(1, #r.failures)
      local f = r.failures[1]
      assert.are.equal("sfu_heavy [flaky] at warps=32 mshrs=64: no result at 64 MSHRs", f.message)
      assert.are.same({ warps = 32, mshrs = 64 }, f.params)
      assert.are.equal(5, f.task)
      assert.is_nil(r.incomplete)
    end
    -- a point whose configuration is invalid fails alone, and so does a bad result
    local bad = toy_sweep(new_log(), { workloads = { "suite:sfu_heavy" },
      models = { { name = "nan", run = function(_, cfg) return { x = cfg.l1.mshrs == 8 and 0 / 0 or 1 } end } },
      parameters = { { path = "l1.mshrs", values = { 8, 0, 16 } } } })
    local r = assert(experiment.run(bad, { quiet = true }))
    assert.are.equal(1, #r.rows)
    assert.are.equal(2, #r.failures)
    assert.matches("at l1.mshrs=8: result field 'x' is ", r.failures[1].message, 1, true)
    assert.matches("at l1.mshrs=0: %-p l1.mshrs=0: parameter 'l1.mshrs'", r.failures[2].message)
  end)

  it("returns nil and a message when the sweep cannot start, and raises on a malformed definition", function()
    local r, err = experiment.run(toy_sweep(new_log(), { workloads = { "/nonexistent/trace" } }), { quiet = true })
    assert.is_nil(r)
    assert.matches("/nonexistent/trace", err, 1, true)
    assert.has_error(function() experiment.new { name = "x y" } end,
      "gpush.experiment: name must be a word (letters, digits, _ and -), used in file names")
    assert.has_error(function()
      toy_sweep(new_log(), { parameters = { { path = "sm.warps", values = { 1 } } } })
    end, "gpush.experiment: parameters[1]: 'sm.warps' is not a configuration parameter (see gpush config describe)")
    assert.has_error(function() toy_sweep(new_log(), { models = { { name = "m" } } }) end,
      "gpush.experiment: models[1] needs a name (string) and run (function)")
  end)

  it("has an identity that follows the definition, workloads and models", function()
    local a = toy_sweep(new_log()):identity()
    assert.are.equal(a, toy_sweep(new_log()):identity())
    assert.are_not.equal(a, toy_sweep(new_log(), { workloads = { "suite:sfu_heavy" } }):identity())
    assert.are_not.equal(a, toy_sweep(new_log(), { seed = 2 }):identity())
    assert.are_not.equal(a, toy_sweep(new_log(), { models = { counting_model("other", new_log()) } }):identity())
    assert.matches("^%x+$", a)
  end)

  it("hashes a kernel's content, whatever the file format", function()
    local trace = require "gpush.trace"
    local function digest(input)
      local iter = assert(trace.kernels_of(input))
      local _, kernel = iter()
      return core.kernel_digest(kernel)
    end
    local dir = helper.temp_dir()
    assert.are.equal(0, (helper.gpush_run { "trace", "convert", "suite:stream_triad", dir .. "/k.gpt" }))
    assert.are.equal(digest("suite:stream_triad"), digest(dir .. "/k.gpt"))
    assert.are.equal(digest("suite:stream_triad"), digest("suite:stream_triad"))
    assert.are_not.equal(digest("suite:stream_triad"), digest("suite:sfu_heavy"))
    assert.are.equal(core.digest("abc"), core.digest("abc"))
    assert.are_not.equal(core.digest("abc"), core.digest("abd"))
    os.execute("rm -rf " .. dir)
  end)
end)

describe("experiment.models.sim", function()
  local gpush = require "gpush"
  local sweep_report = require "gpush.report.sweep"
  local sim_family = assert(require("gpush.models").family("sim"))

  it("maps the largest non-issuing stall reason to a bottleneck label", function()
    local d = sim_family.dominant
    assert.are.equal("MEM", d { issued = 50, dependence = 20, memory = 30, idle = 1 })
    assert.are.equal("DEP", d { issued = 50, dependence = 30, memory = 20 })
    assert.are.equal("DEP", d { issued = 1, dependence = 5, memory = 5 }) -- a tie goes to the earlier reason
    assert.are.equal("IDLE", d { issued = 9, idle = 10, no_eligible_warp = 3 })
    assert.are.equal("NO_WARP", d { issued = 9, no_eligible_warp = 3 })
    assert.are.equal("BASE", d { issued = 7, memory = 0 })
    -- every stall reason has its own label, and only issuing is BASE
    local labels = {}
    for _, reason in ipairs(sim_family.STALL_REASONS) do
      local label = sim_family.STALL_LABELS[reason]
      assert.is_nil(labels[label], label)
      labels[label] = reason
      assert.are.equal(reason == "issued" and "BASE" or label, d { issued = 1, [reason] = 2 })
    end
    assert.are.equal(9, #sim_family.STALL_REASONS)
  end)

  it("returns stall shares that split the scheduler cycles, a CPI in that unit and the bottleneck", function()
    local kernel = assert(gpush.workloads.kernel(gpush.workloads.get("stream_triad")))
    local model = experiment.models.sim { policy = "gto" }
    assert.are.equal("sim-gto", model.name)
    for _, overrides in ipairs { {}, { ["l1.mshrs"] = 8, ["sm.max_warps"] = 16 } } do
      local cfg = assert(gpush.config.load("gtx660ti", overrides))
      local row = assert(model.run(kernel, cfg))
      local r = assert(gpush.sim.run(kernel, cfg, { policy = "gto" }))
      local total, largest = 0, 0
      for _, reason in ipairs(sim_family.STALL_REASONS) do
        local share = row["stall_" .. reason]
        assert.is_true(share >= 0 and share <= 1, reason)
        assert.is_near(r.stalls[reason] / r.counts.scheduler_cycles, share, 1e-12)
        total = total + share
        if reason ~= "issued" then
          largest = math.max(largest, share)
        end
      end
      assert.is_near(1, total, 1e-12)
      assert.are.equal(sim_family.dominant(r.stalls), row.dominant)
      assert.are.equal(largest, row["stall_" .. sim_family.STALL_REASONS[({ DEP = 2, MEM = 3, LSU = 4, SFU = 5,
        UNIT = 6, BARRIER = 7, NO_WARP = 8, IDLE = 9 })[row.dominant]]])
      -- scheduler cycles per warp instruction: no more than every scheduler of every SM for the
      -- whole kernel; issuing cycles per instruction between 1 / issue width and 1
      assert.is_near(r.counts.scheduler_cycles / r.warp_instructions, row.cpi, 1e-12 * row.cpi)
      assert.is_true(row.cpi <= r.cycles * cfg.sm.count * cfg.sm.schedulers / r.warp_instructions)
      local issuing = row.stall_issued * row.cpi
      assert.is_true(issuing >= 1 / cfg.sm.issue_width - 1e-12 and issuing <= 1 + 1e-12, tostring(issuing))
      assert.are.equal(r.cycles, row.cycles)
      assert.is_near(r.dram_gbs / cfg.dram.bandwidth_gbs, row.dram_util, 1e-12)
      -- over the active cycles (a block resident), idle apart: the active shares sum to 1 and
      -- scale back to the shares of all cycles; the bottleneck is in the shared vocabulary
      local active = 0
      for _, reason in ipairs(sim_family.ACTIVE_REASONS) do
        active = active + row["active_" .. reason]
        assert.is_near(row["stall_" .. reason], row["active_" .. reason] * (1 - row.idle_share), 1e-12)
      end
      assert.is_near(1, active, 1e-12)
      assert.are.equal(row.stall_idle, row.idle_share)
      assert.is_near(row.cpi * (1 - row.idle_share), row.active_cpi, 1e-12 * row.cpi)
      assert.is_true(require("gpush.models.vocabulary").is_label(row.bottleneck), row.bottleneck)
      assert.are.equal(r.bottleneck, row.bottleneck)
    end
  end)

  it("draws the stall stacks as shares of the active scheduler cycles in the sweep report, idle apart", function()
    local dir = helper.temp_dir()
    local row = { workload = "w", kernel = "k", launch = 1, model = "sim-gto", warps = 8, cycles = 100, cpi = 2,
      stall_issued = 0.5, stall_dependence = 0.125, stall_memory = 0.25, stall_lsu_busy = 0, stall_sfu_busy = 0,
      stall_unit_busy = 0, stall_barrier = 0, stall_no_eligible_warp = 0, stall_idle = 0.125,
      active_issued = 4 / 7, active_dependence = 1 / 7, active_memory = 2 / 7, active_lsu_busy = 0,
      active_sfu_busy = 0, active_unit_busy = 0, active_barrier = 0, active_no_eligible_warp = 0, idle_share = 0.125 }
    -- results of an earlier gpush, without the active_* columns: the same shares from stall_*
    local old = { workload = "w", kernel = "k2", launch = 2, model = "sim-gto", warps = 8, cycles = 100, cpi = 2 }
    for k, v in pairs(row) do
      if k:match("^stall_") then
        old[k] = v
      end
    end
    local res = results.new { columns = {}, rows = { row, old }, extra = { sweep = { name = "s",
      models = { "sim-gto" }, parameters = { { path = "sm.max_warps", column = "warps", values = { 8 } } } } } }
    local paths = assert(sweep_report.svg(res, dir))
    assert.are.same({ dir .. "/s_stalls_sim-gto.svg", dir .. "/s_cycles.svg" }, paths)
    local text = helper.read_file(paths[1])
    local drawn = {}
    for category, value in text:gmatch('class="segment" data%-category="([%u_]+)" data%-value="([^"]+)"') do
      drawn[#drawn + 1] = { category, tonumber(value) }
    end
    -- one segment per non-empty active reason, under its own label; no IDLE segment: each bar is 1 high
    assert.are.equal(6, #drawn)
    for i, want in ipairs { { "BASE", 4 / 7 }, { "DEP", 1 / 7 }, { "MEM", 2 / 7 } } do
      for _, bar in ipairs { 0, 3 } do
        assert.are.equal(want[1], drawn[bar + i][1])
        assert.is_near(want[2], drawn[bar + i][2], 1e-5)
      end
    end
    -- the idle share is a marker of its own, on the same axis
    local markers = 0
    for tip in text:gmatch("<title>idle: share of all scheduler cycles %(no block resident%) ([^<]+)</title>") do
      assert.is_near(0.125, tonumber(tip), 1e-9)
      markers = markers + 1
    end
    assert.are.equal(2, markers)
    assert.matches("Stall stacks, sim-gto", text, 1, true)
    assert.matches(">share of active scheduler cycles<", text, 1, true)
    for _, p in ipairs(paths) do
      os.remove(p)
    end
    os.remove(dir)
  end)
end)

describe("experiment progress", function()
  local function fake_stream()
    local s = { text = "" }
    function s:write(...)
      self.text = self.text .. table.concat({ ... })
      return self
    end
    function s.flush() end
    return s
  end

  it("draws a bar with rate and ETA on a terminal, plain lines otherwise, nothing when quiet", function()
    local now = 0
    local function clock() return now end
    local tty, plain, quiet = fake_stream(), fake_stream(), fake_stream()
    local bars = {
      experiment.progress(4, { label = "s", stream = tty, tty = true, clock = clock }),
      experiment.progress(4, { label = "s", stream = plain, tty = false, clock = clock, interval = 5 }),
      experiment.progress(4, { label = "s", stream = quiet, tty = true, quiet = true, clock = clock }),
    }
    for step = 1, 4 do
      now = step * 3
      for _, p in ipairs(bars) do
        p:step(step == 2)
      end
    end
    for _, p in ipairs(bars) do
      p:finish()
    end
    assert.matches("\rs [###############...............] 2/4   0.3/s ETA 6s, 1 failed", tty.text, 1, true)
    local last = "\rs [##############################] 4/4   0.3/s ETA 0s, 1 failed\027[K\n"
    assert.are.equal(last, tty.text:sub(-#last))
    assert.is_nil(plain.text:find("\r", 1, true))
    -- steps at 3 s (not yet due), 6 s (due), 9 s (not), 12 s (due): two lines and the final one
    assert.are.equal("s: 2 of 4 (50%), 0.3/s, ETA 6s, 1 failed\ns: 4 of 4 (100%), 0.3/s, ETA 0s, 1 failed\n"
      .. "s: 4 of 4 done in 12s (0.3/s), 1 failed\n", plain.text)
    assert.are.equal("", quiet.text)
  end)

  it("keeps a redirected stderr free of bars, --quiet silent, and draws the bar on a terminal", function()
    local dir = helper.temp_dir()
    local args = { "scenarios/kepler_sweep.lua", "--traces", "suite:pointer_chase", "--out", dir, "--jobs", "2" }
    local code, _, err = helper.gpush_run(args)
    assert.are.equal(0, code, err)
    assert.is_nil(err:find("\r", 1, true))
    assert.matches("kepler_sweep: 270 of 270 done in", err, 1, true)
    args[#args + 1] = "--quiet"
    local quiet_code, out, quiet_err = helper.gpush_run(args)
    assert.are.equal(0, quiet_code)
    assert.are.equal("", quiet_err)
    assert.are.equal("", out)
    if os.execute("command -v script >/dev/null 2>&1") then
      local words = { helper.shell_quote(helper.gpush) }
      for i = 1, #args - 1 do
        words[#words + 1] = helper.shell_quote(args[i])
      end
      local _, tty_out = helper.run("script -qec " .. helper.shell_quote(table.concat(words, " ") .. " >/dev/null")
        .. " /dev/null")
      assert.matches("\rkepler_sweep [", tty_out, 1, true)
      assert.matches("270/270", tty_out, 1, true)
    end
    os.execute("rm -rf " .. dir)
  end)
end)

describe("experiment outputs", function()
  local script = [[
local experiment = require "gpush.experiment"
local core = require "gpush.core"
local main_pid = core.proc_self()
-- the signal goes through kill(1): gpush signals only its own workers, and
-- os.execute would not do (system() ignores SIGINT in the caller meanwhile)
local stop_at = tonumber(os.getenv("STOP_AT") or "-1")
local model = { name = "toy", run = function(_, cfg)
  if cfg.l1.mshrs == stop_at then io.popen("kill -s INT " .. main_pid):close() end
  if cfg.l1.mshrs == 3 then return nil, "three is refused" end
  local t = core.now()
  while core.now() - t < 0.01 do end
  return { cycles = 1000 - cfg.l1.mshrs }
end }
os.exit(experiment.main({ name = "toy", base = "gtx660ti", workloads = { "suite:sfu_heavy" }, models = { model },
  parameters = { { path = "l1.mshrs", values = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }, column = "mshrs" } },
  summary = { objective = "cycles", baseline = { mshrs = 1 } } }, arg))
]]

  it("stamps provenance in every file and lists failures, exiting 1", function()
    local path = helper.write_temp(script, ".lua")
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { path, "--out", dir, "--jobs", "2", "-p", "clock.core_mhz=900" }
    assert.are.equal(1, code, err)
    assert.matches("toy: failed: sfu_heavy [toy] at mshrs=3: three is refused", err, 1, true)
    assert.matches("toy: 1 of 12 points failed", err, 1, true)
    assert.matches("| sfu_heavy | toy | 999.0 | 12 | 988.0 | 1.01x |", out, 1, true)
    local csv = helper.read_file(dir .. "/toy.csv")
    local json_text = helper.read_file(dir .. "/toy.json")
    local md = helper.read_file(dir .. "/toy.md")
    local version = core.version()
    for _, stamp in ipairs { "gpush: " .. version, "seed: 1", "sweep: toy", "base: gtx660ti clock.core_mhz=900" } do
      assert.matches("# " .. stamp, csv, 1, true)
      assert.matches("- " .. stamp:gsub(": ", ": `", 1), md, 1, true)
    end
    assert.matches("# command: gpush " .. path .. " --out " .. dir, csv, 1, true)
    assert.matches("# identity: %x+", csv)
    assert.matches("## Failed points (1)", md, 1, true)
    local back = assert(results.read_json(dir .. "/toy.json"))
    assert.are.equal(version, back.provenance.gpush)
    assert.matches("^gpush .* %-%-jobs 2 %-p clock.core_mhz=900$", back.provenance.command)
    assert.are.equal(11, #back.rows)
    for _, row in ipairs(back.rows) do
      assert.matches("^%x+$", row.config_hash)
      assert.matches("^%x+$", row.trace_hash)
    end
    assert.are_not.equal(back.rows[1].config_hash, back.rows[2].config_hash)
    assert.are.equal(back.rows[1].trace_hash, back.rows[2].trace_hash)
    assert.matches('"failures": [', json_text, 1, true)
    -- the CSV reads back to the same rows
    local from_csv = assert(results.read_csv(dir .. "/toy.csv"))
    assert.are.same(back:column("cycles"), from_csv:column("cycles"))
    assert.are.same(back:column("trace_hash"), from_csv:column("trace_hash"))
    os.remove(path)
    os.execute("rm -rf " .. dir)
  end)

  it("stops on Ctrl-C, writes the finished rows marked incomplete and exits 130", function()
    local path = helper.write_temp(script, ".lua")
    -- two workers take alternate tasks (1, 3, 5, ... and 2, 4, ...): the one
    -- reaching mshrs 9 has done four before it, the other about as many
    for _, run in ipairs { { jobs = "1", stop = "5" }, { jobs = "2", stop = "9" } } do
      local jobs, dir = run.jobs, helper.temp_dir()
      local code, _, err = helper.gpush_run({ path, "--out", dir, "--jobs", jobs, "--quiet" }, { STOP_AT = run.stop })
      assert.are.equal(130, code, err)
      assert.matches("toy: interrupted %(SIGINT%); %d+ of 12 tasks ran; wrote the %d+ finished rows, every file"
        .. " marked incomplete", err)
      local back = assert(results.read_csv(dir .. "/toy.csv"))
      assert.are.equal("interrupted (SIGINT)", back.incomplete)
      assert.is_true(#back.rows >= 3 and #back.rows < 11, "rows: " .. #back.rows)
      if jobs == "1" then
        assert.are.same({ 1, 2, 4, 5 }, (back:column("mshrs")))
      end
      assert.matches("**Incomplete:** interrupted (SIGINT)", helper.read_file(dir .. "/toy.md"), 1, true)
      os.execute("rm -rf " .. dir)
    end
    os.remove(path)
  end)
end)

-- --shard I/N and gpush merge: the merged outputs equal the single run's,
-- and mismatched, duplicate, missing and incomplete shards are refused.
local helper = require "spec_helper"
local core = require "gpush.core"
local results = require "gpush.results"

local TRACES = { "--traces", "suite:sfu_heavy", "--traces", "suite:pointer_chase" }

local function sweep_args(extra)
  local args = { "scenarios/kepler_sweep.lua" }
  for _, a in ipairs(TRACES) do
    args[#args + 1] = a
  end
  for _, a in ipairs(extra) do
    args[#args + 1] = a
  end
  return args
end

-- A file's text without the lines naming the command that wrote it.
local function without_command(text)
  local lines = {}
  for line in text:gmatch("[^\n]*\n?") do
    if not line:match("^# command: ") and not line:match('^%s*"command": ') and not line:match("^%- command: ") then
      lines[#lines + 1] = line
    end
  end
  return table.concat(lines)
end

local function run_ok(args)
  local code, out, err = helper.gpush_run(args)
  assert.are.equal(0, code, err)
  return out, err
end

describe("gpush merge", function()
  local dir

  setup(function()
    dir = helper.temp_dir()
    run_ok(sweep_args { "--out", dir .. "/single", "--quiet", "--jobs", "1" })
    for i = 1, 3 do
      run_ok(sweep_args { "--out", dir .. "/parts", "--quiet", "--jobs", "1", "--shard", i .. "/3" })
    end
  end)

  teardown(function()
    os.execute("rm -rf " .. dir)
  end)

  it("writes exactly the single run's CSV, JSON and Markdown from the shards", function()
    local parts = dir .. "/parts/kepler_sweep.shard-%d-of-3.json"
    local out = run_ok { "merge", "--out", dir .. "/merged", parts:format(3), parts:format(1), parts:format(2) }
    assert.matches("Merged 3 shards of 'kepler_sweep' (540 rows).", out, 1, true)
    for _, ext in ipairs { "csv", "json", "md" } do
      local single = helper.read_file(dir .. "/single/kepler_sweep." .. ext)
      local merged = helper.read_file(dir .. "/merged/kepler_sweep." .. ext)
      assert.are.equal(without_command(single), without_command(merged), ext)
      assert.are_not.equal(single, merged) -- the command lines differ, and only they
    end
    -- and the same SVG reports
    local svgs = 0
    for _, name in ipairs(assert(core.list_dir(dir .. "/single"))) do
      if name:match("%.svg$") then
        svgs = svgs + 1
        assert.are.equal(helper.read_file(dir .. "/single/" .. name), helper.read_file(dir .. "/merged/" .. name), name)
      end
    end
    assert.is_true(svgs >= 3)
    local merged = assert(results.read_json(dir .. "/merged/kepler_sweep.json"))
    assert.matches("^gpush merge %-%-out ", merged.provenance.command)
    assert.are.equal(540, #merged.rows)
    -- a shard holds its slice only: 540 tasks (2 kernels x 5 models x 54 points) in three runs of 180
    local first = assert(results.read_json(parts:format(1)))
    assert.are.same({ index = 1, count = 3, first_task = 1, last_task = 180 }, first.extra.shard)
    assert.are.equal(180, #first.rows)
    assert.are.equal("sfu_heavy", first.rows[180].kernel)
    assert.are.equal("mcore", first.rows[180].model)
    -- without --out, next to the first partial; --jobs 2 shards merge the same
    run_ok(sweep_args { "--out", dir .. "/par", "--quiet", "--jobs", "2", "--shard", "1/2" })
    run_ok(sweep_args { "--out", dir .. "/par", "--quiet", "--jobs", "2", "--shard", "2/2" })
    run_ok { "merge", "--quiet", dir .. "/par/kepler_sweep.shard-1-of-2.json", dir .. "/par/kepler_sweep.shard-2-of-2.json" }
    assert.are.equal(without_command(helper.read_file(dir .. "/single/kepler_sweep.csv")),
      without_command(helper.read_file(dir .. "/par/kepler_sweep.csv")))
  end)

  it("refuses partials of different sweeps", function()
    run_ok { "scenarios/kepler_sweep.lua", "--traces", "suite:sfu_heavy", "--out", dir .. "/other", "--quiet",
      "--shard", "2/3" }
    local code, _, err = helper.gpush_run { "merge", "--out", dir .. "/x", dir .. "/parts/kepler_sweep.shard-1-of-3.json",
      dir .. "/other/kepler_sweep.shard-2-of-3.json", dir .. "/parts/kepler_sweep.shard-3-of-3.json" }
    assert.are.equal(1, code)
    assert.matches("belong to different sweeps %(identity %x+, sweep 'kepler_sweep' vs identity %x+", err)
    -- -p changes the definition too
    run_ok(sweep_args { "--out", dir .. "/p", "--quiet", "--shard", "2/3", "-p", "clock.core_mhz=1000" })
    code, _, err = helper.gpush_run { "merge", "--out", dir .. "/x", dir .. "/parts/kepler_sweep.shard-1-of-3.json",
      dir .. "/p/kepler_sweep.shard-2-of-3.json", dir .. "/parts/kepler_sweep.shard-3-of-3.json" }
    assert.are.equal(1, code)
    assert.matches("belong to different sweeps", err, 1, true)
  end)

  it("refuses duplicate, missing and incomplete shards, and files that are not partials", function()
    local p1 = dir .. "/parts/kepler_sweep.shard-1-of-3.json"
    local p2 = dir .. "/parts/kepler_sweep.shard-2-of-3.json"
    local p3 = dir .. "/parts/kepler_sweep.shard-3-of-3.json"
    local code, _, err = helper.gpush_run { "merge", p1, p2, p2, p3 }
    assert.are.equal(1, code)
    assert.are.equal("gpush merge: " .. p2 .. " and " .. p2 .. " are both shard 2 of 3\n", err)
    code, _, err = helper.gpush_run { "merge", p1 }
    assert.are.equal(1, code)
    assert.are.equal("gpush merge: missing shards 2, 3 of 3\n", err)
    code, _, err = helper.gpush_run { "merge", p3, p1 }
    assert.are.equal("gpush merge: missing shard 2 of 3\n", err)
    -- a shard marked incomplete (as Ctrl-C leaves it)
    local part = assert(results.read_json(p2))
    part.incomplete = "interrupted (SIGINT)"
    local broken = dir .. "/broken.json"
    assert(part:write_json(broken))
    code, _, err = helper.gpush_run { "merge", p1, broken, p3 }
    assert.are.equal(1, code)
    assert.matches("broken.json (shard 2 of 3) is incomplete: interrupted (SIGINT); run that shard again", err, 1, true)
    -- a kernel whose trace differs between shards
    part = assert(results.read_json(p2))
    part.rows[1].trace_hash = "0000000000000000"
    assert(part:write_json(broken))
    code, _, err = helper.gpush_run { "merge", p1, broken, p3 }
    assert.are.equal(1, code)
    assert.matches("kernel 'sfu_heavy' of suite:sfu_heavy differs between shards", err, 1, true)
    -- shards naming a function that no module declares as a sweep report run nothing
    local forged = {}
    for i, p in ipairs { p1, p2, p3 } do
      part = assert(results.read_json(p))
      part.extra.sweep.reports = { "gpush.text:closest" }
      forged[i] = dir .. "/forged-" .. i .. ".json"
      assert(part:write_json(forged[i]))
    end
    code, _, err = helper.gpush_run { "merge", "--out", dir .. "/forged", forged[1], forged[2], forged[3] }
    assert.are.equal(1, code)
    assert.matches("report 'gpush.text:closest': gpush.text.sweep_reports does not list 'closest' as a sweep report",
      err, 1, true)
    assert.is_nil(core.stat(dir .. "/forged/kepler_sweep.csv"))
    -- the title is optional in a shard (fuzz_results found the Markdown summary raising without it)
    local untitled = {}
    for i, p in ipairs { p1, p2, p3 } do
      part = assert(results.read_json(p))
      part.extra.sweep.title = nil
      untitled[i] = dir .. "/untitled-" .. i .. ".json"
      assert(part:write_json(untitled[i]))
    end
    run_ok { "merge", "--out", dir .. "/untitled", untitled[1], untitled[2], untitled[3] }
    assert.matches("^# kepler_sweep\n", helper.read_file(dir .. "/untitled/kepler_sweep.md"))
    -- the merge gives the description its title once, so no reader needs a fallback
    local merged = assert(results.read_json(dir .. "/untitled/kepler_sweep.json"))
    assert.are.equal("kepler_sweep", merged.extra.sweep.title)
    -- the best-point table's settings come from the shard too: checked before use
    for _, case in ipairs {
      { { format = "%s%s%s" }, "summary.format must be one number format such as %.1f" },
      { { baseline = "mshrs=8" }, "summary.baseline must be an object of column values" },
      { "best", "summary must be an object" },
    } do
      part = assert(results.read_json(p2))
      part.extra.sweep.summary = case[1]
      assert(part:write_json(broken))
      code, _, err = helper.gpush_run { "merge", "--out", dir .. "/badsummary", p1, broken, p3 }
      assert.are.equal(1, code)
      assert.matches("broken.json: the sweep's " .. case[2], err, 1, true)
    end
    -- a single run's JSON is no partial; an unreadable file names itself
    code, _, err = helper.gpush_run { "merge", dir .. "/single/kepler_sweep.json" }
    assert.are.equal(1, code)
    assert.matches("kepler_sweep.json is not a shard's partial result", err, 1, true)
    code, _, err = helper.gpush_run { "merge", dir .. "/nope.json" }
    assert.are.equal(1, code)
    assert.matches("nope.json", err, 1, true)
    code, _, err = helper.gpush_run { "merge" }
    assert.are.equal(2, code)
    assert.matches("usage: gpush merge", err, 1, true)
  end)
end)

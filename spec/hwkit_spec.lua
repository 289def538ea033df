-- The hardware kit (tools/hwkit, docs/hwkit.md) without a GPU: the raw
-- records to the measured CSV (tocsv.awk) on a recorded format fixture, the
-- runner end to end with stand-in programs, the description files, and the
-- SASS reader on a fixture in cuobjdump's layout.  The fixtures are written
-- by hand and say so: nothing here is a measurement.  The checks that need
-- nvcc are in hwkit_nvcc_spec.lua.
local csv = require "gpush.csv"
local gpush = require "gpush"
local helper = require "spec_helper"

local fixture = "spec/fixtures/hwkit/raw-format-fixture.txt"
local q = helper.shell_quote

local function tocsv(raw, vars)
  local words = { "awk" }
  for k, v in pairs(vars or {}) do
    words[#words + 1] = "-v " .. q(k .. "=" .. v)
  end
  words[#words + 1] = "-f tools/hwkit/tocsv.awk " .. q(raw)
  return helper.run(table.concat(words, " "))
end

-- The CSV's records as tables by column name, and the comments.
local function rows_of(text)
  local records, comments = assert(csv.parse(text))
  local header, rows = records[1], {}
  for i = 2, #records do
    local r = {}
    for j, name in ipairs(header) do
      r[name] = records[i][j]
    end
    rows[#rows + 1] = r
  end
  return rows, header, comments
end

describe("hwkit tocsv.awk", function()
  local code, out, err = tocsv(fixture, { kernels = "../../tools/hwkit/kernels", mem_mhz = "1593",
    device = "Fixture GPU" })
  local rows, header, comments = rows_of(out)

  it("writes gpush correlate's columns first, then every other key in the order first recorded", function()
    assert.same({ "kernel", "iters", "grid", "block", "cycles", "core_mhz", "mem_mhz", "label", "bench",
      "event_us", "event_min_us", "batch_us" }, { table.unpack(header, 1, 12) })
    -- chains' keys after empty's, pchase's after those
    local at = {}
    for i, name in ipairs(header) do
      at[name] = i
    end
    assert.is_true(at.unit < at.kernel_mhz and at.chain_insts < at.value_ns)
    assert.equal("Fixture GPU", comments[1]:match("correlate, (.*)$"))
  end)

  it("computes cycles as the median event time x the measured SM clock", function()
    assert.equal(4, #rows)
    -- by hand: 4.5 us x 1000 MHz; 6.25 x 1600; 2000 x 1500.5; 100 x 1500
    assert.same({ "4500", "10000", "3001000", "150000" },
      { rows[1].cycles, rows[2].cycles, rows[3].cycles, rows[4].cycles })
  end)

  it("names kernels gpush ships as they are and description files relative to the CSV's folder", function()
    assert.equal("empty", rows[1].kernel)
    assert.equal("ffma_chain", rows[2].kernel)
    assert.equal("10", rows[2].iters)
    assert.equal("", rows[1].iters)
    assert.equal("../../tools/hwkit/kernels/chase_l2.lua", rows[3].kernel)
  end)

  it("takes mem_mhz from the record, else from -v mem_mhz", function()
    assert.equal("1593", rows[1].mem_mhz)
    assert.equal("1200", rows[4].mem_mhz)
  end)

  it("quotes fields as gpush's CSV codec does, so labels with commas and quotes read back", function()
    assert.equal('triad, "quoted", 3 x 64 MB', rows[4].label)
    assert.equal("cycles per block, GPU-wide", rows[1].metric)
  end)

  it("reports a bad record with its file and line, leaves it out and exits 1", function()
    assert.equal(1, code)
    assert.truthy(err:find(fixture .. ":6: not a raw record", 1, true))
    assert.truthy(err:find(fixture .. ":8: event_us is missing", 1, true))
    assert.truthy(err:find("2 record(s) left out", 1, true))
  end)

  it("exits 0 on good records and writes the header alone for none", function()
    local path = helper.write_temp("# nothing\n")
    local c, text = tocsv(path)
    os.remove(path)
    assert.equal(0, c)
    local _, h = rows_of(text)
    assert.equal("kernel", h[1])
  end)
end)

-- A stand-in for the built kit: shell scripts that print recorded records
-- (from the fixture) or fail, and a stand-in nvidia-smi.
local function stand_in(dir, failing)
  local function script(name, body)
    local path = dir .. "/" .. name
    local f = assert(io.open(path, "w"))
    f:write("#!/bin/sh\n", body, "\n")
    f:close()
    os.execute("chmod +x " .. q(path))
  end
  os.execute("mkdir -p " .. q(dir .. "/bin") .. " " .. q(dir .. "/path"))
  local lines = {}
  for line in io.lines(fixture) do
    lines[#lines + 1] = line
  end
  script("bin/hwkit-devprops", "printf 'cuda_driver_version: 13.0 (13000)\\ncuda_runtime_version: 13.0 (13000, built in)\\n"
    .. "name: Stand-in GPU\\ncompute_capability: 9.0\\nmultiprocessors: 4\\nkernel_runs: yes\\n'")
  script("bin/hwkit-empty", "cat <<'EOF'\n" .. lines[4] .. "\nEOF")
  script("bin/hwkit-chains", failing and "echo 'hwkit chains: a stand-in failure' >&2; exit 2"
    or ("cat <<'EOF'\n" .. lines[5] .. "\nEOF"))
  script("bin/hwkit-pchase", "cat <<'EOF'\n" .. lines[7] .. "\nEOF")
  script("bin/hwkit-stream", "sleep 30")
  script("path/nvidia-smi", [[
case "$*" in
  *-lms*) echo 'timestamp, clocks.sm [MHz], clocks.mem [MHz], power.draw [W], temperature.gpu'
          while true; do echo '2026/01/01 00:00:00.000, 1755, 1593, 300.00, 50'; sleep 0.2; done ;;
  *--query-gpu*) echo 'header'; echo 'values' ;;
  *) echo 'stand-in nvidia-smi report' ;;
esac]])
  local f = assert(io.open(dir .. "/bin/BUILD-INFO", "w"))
  f:write("stand-in build: not a real one\n")
  f:close()
end

describe("hwkit run.sh", function()
  it("runs the benchmarks, writes the measured CSV, the device's properties and the log", function()
    local dir = helper.temp_dir()
    stand_in(dir)
    local out = dir .. "/out"
    local code, stdout = helper.run(("PATH=%s:$PATH bash tools/hwkit/run.sh %s --bin %s --only empty,chains,pchase"
      .. " --dest data/hwkit/stand-in"):format(q(dir .. "/path"), q(out), q(dir .. "/bin")))
    assert.equal(0, code, stdout)
    assert.truthy(stdout:find("device: Stand-in GPU, 4 SMs", 1, true))
    assert.truthy(stdout:find("[2/3] chains: 1 rows", 1, true))
    local rows = rows_of(helper.read_file(out .. "/measured.csv"))
    assert.equal(3, #rows)
    assert.equal("../../../tools/hwkit/kernels/chase_l2.lua", rows[3].kernel)
    assert.equal("1593", rows[1].mem_mhz) -- the sampled memory clock
    local device = helper.read_file(out .. "/device.txt")
    assert.truthy(device:find("name: Stand-in GPU", 1, true))
    assert.truthy(device:find("sm_clock_sampled_mhz: min 1755", 1, true))
    assert.truthy(device:find("stand-in nvidia-smi report", 1, true))
    assert.truthy(helper.read_file(out .. "/raw.txt"):find("^# hwkit raw 1: Stand%-in GPU"))
    -- staged writes leave nothing behind
    local p = io.popen("ls -a " .. q(out))
    local names = p:read("a")
    p:close()
    assert.falsy(names:find("%.tmp"))
    os.execute("rm -rf " .. q(dir))
  end)

  it("keeps the other benchmarks' rows when one fails or runs past its time, and exits 1", function()
    local dir = helper.temp_dir()
    stand_in(dir, true)
    local out = dir .. "/out"
    local code, stdout = helper.run(("PATH=%s:$PATH bash tools/hwkit/run.sh %s --bin %s --only empty,chains,stream"
      .. " --timeout 2"):format(q(dir .. "/path"), q(out), q(dir .. "/bin")))
    assert.equal(1, code)
    assert.truthy(stdout:find("chains: FAILED (exit 2", 1, true))
    assert.truthy(stdout:find("stream: FAILED (stopped at its 2 s limit", 1, true))
    assert.truthy(helper.read_file(out .. "/run.log"):find("a stand-in failure", 1, true))
    local rows = rows_of(helper.read_file(out .. "/measured.csv"))
    assert.equal(1, #rows)
    assert.equal("empty", rows[1].kernel)
    os.execute("rm -rf " .. q(dir))
  end)

  it("says why nothing ran where the programs cannot start, and exits 3", function()
    local dir = helper.temp_dir()
    os.execute("mkdir -p " .. q(dir .. "/bin"))
    local f = assert(io.open(dir .. "/bin/hwkit-devprops", "w"))
    f:write("#!/bin/sh\necho 'hwkit devprops: no NVIDIA driver could be loaded (libcuda.so): is this a GPU machine?' >&2\nexit 3\n")
    f:close()
    os.execute("chmod +x " .. q(dir .. "/bin/hwkit-devprops"))
    local code, stdout = helper.run(("bash tools/hwkit/run.sh %s --bin %s"):format(q(dir .. "/out"), q(dir .. "/bin")))
    assert.equal(3, code)
    assert.truthy(stdout:find("no NVIDIA driver could be loaded", 1, true))
    assert.truthy(stdout:find("nothing measured", 1, true))
    os.execute("rm -rf " .. q(dir))
  end)

  it("refuses an unknown benchmark and a missing output folder with exit 2", function()
    local code, _, err = helper.run("bash tools/hwkit/run.sh /tmp/x --only empty,nope")
    assert.equal(2, code)
    assert.truthy(err:find("no benchmark 'nope'", 1, true))
    code, _, err = helper.run("bash tools/hwkit/run.sh")
    assert.equal(2, code)
    assert.truthy(err:find("give the output folder", 1, true))
  end)
end)

-- Every description file of the kit.
local function descriptions()
  local files = {}
  local p = io.popen("ls tools/hwkit/kernels/*.lua")
  for line in p:lines() do
    if not line:match("/common%.lua$") then
      files[#files + 1] = line
    end
  end
  p:close()
  return files
end

describe("hwkit descriptions", function()
  it("all load and build a kernel with gpush.workloads, per warp what their CUDA kernel runs", function()
    local files = descriptions()
    assert.is_true(#files >= 25)
    for _, file in ipairs(files) do
      local d = assert(gpush.workloads.load_file(file))
      assert.equal(file:match("([%w_]+)%.lua$"), d.name)
      local h = assert(d.hwkit, file .. ": no hwkit field")
      assert.truthy(io.open("tools/hwkit/" .. h.source), file .. ": no source " .. tostring(h.source))
      -- the measured class: per_trip of it in a trip
      local n = 0
      for _, op in ipairs(d.body) do
        n = n + ((op[1] == h.class) and 1 or 0)
      end
      assert.equal(h.per_trip, n, file)
      -- a small copy builds (the full sizes are for correlate's runs)
      local small = helper.with(d, { grid = math.min(d.grid, 2), trips = math.min(d.trips, 2) })
      local k = assert(gpush.workloads.kernel(small))
      local info = k:info()
      local warps = small.grid * ((small.block + 31) // 32)
      assert.equal(warps * (small.trips * #d.body + 1), info.warp_instructions, file)
      k:close()
    end
  end)

  it("a chain is 128 dependent instructions a trip: the simulator takes 128 x latency a trip", function()
    local d = assert(gpush.workloads.load_file("tools/hwkit/kernels/dfma_chain.lua"))
    local cfg = assert(gpush.config.load("h100-pcie", { "launch.kernel_cycles=0", "launch.block_cycles=0" }))
    local function cycles(trips)
      local k = assert(gpush.workloads.kernel(helper.with(d, { trips = trips })))
      local r = assert(gpush.sim.run(k, cfg))
      k:close()
      return r.cycles
    end
    -- each trip adds 128 DFMAs at ops.fp64.latency (8 on h100-pcie), the
    -- loop's three instructions issuing in their shadow
    assert.near(128 * cfg.ops.fp64.latency, cycles(3) - cycles(2), 2)
  end)
end)

describe("hwkit sass.lua", function()
  local sass = dofile("tools/hwkit/sass.lua")
  local programs = sass.parse(helper.read_file("spec/fixtures/hwkit/sass-format-fixture.txt"))

  it("reads functions, instructions, labels and resource usage from cuobjdump's layout", function()
    local fn = assert(sass.find(programs, "pchase", "chase<true, false>"))
    assert.equal(14, #fn.insts)
    assert.equal(8, fn.regs)
    assert.equal("LDG.E.64.STRONG.GPU", fn.insts[5].opcode)
    assert.equal(".L_x_1", fn.insts[8].target)
    local none, message = sass.find(programs, "pchase", "chase<false, false>")
    assert.is_nil(none)
    assert.truthy(message:find("no function chase<false, false>", 1, true))
  end)

  it("finds the loop (the longest backward branch) and counts a trip by class", function()
    local s = sass.shape(assert(sass.find(programs, "pchase", "chase<true, false>")))
    assert.same({ ld_global = 1, uniform = 1, int = 1, branch = 1 }, s.loop)
    assert.equal(4, s.loop_length)
    -- outside: up to the last EXIT (the self-branch and NOP after it never run)
    assert.same({ ld_const = 2, int = 2, branch = 3, st_global = 1 }, s.outside)
  end)

  it("takes the path to the first EXIT of a kernel without a loop", function()
    local s = sass.shape(assert(sass.find(programs, "dispatch", "dispatch_lean<false>")))
    assert.is_nil(s.loop)
    assert.same({ ld_const = 1, other = 1, imad = 1, ld_global = 1, fp32 = 4, branch = 1 }, s.straight)
  end)

  it("compares a description with it: the measured class, every class, the registers", function()
    local chase = assert(gpush.workloads.load_file("tools/hwkit/kernels/chase_l2.lua"))
    local r = sass.compare(chase, sass.shape(assert(sass.find(programs, "pchase", "chase<true, false>"))))
    assert.is_true(r.ok and r.exact and r.regs_ok)
    local lean = assert(gpush.workloads.load_file("tools/hwkit/kernels/dispatch_lean.lua"))
    r = sass.compare(lean, sass.shape(assert(sass.find(programs, "dispatch", "dispatch_lean<false>"))))
    assert.is_true(r.ok)
    assert.is_false(r.exact) -- the fixture's LDC R1 is not in the description
    local wrong = helper.with(chase, { regs = 9, body = { { "int" } } })
    r = sass.compare(wrong, sass.shape(assert(sass.find(programs, "pchase", "chase<true, false>"))))
    assert.is_false(r.ok)
    assert.is_false(r.regs_ok)
  end)

  it("sass_check.lua reports per description and exits 1 for what is missing", function()
    local code, out = helper.gpush_run({ "tools/hwkit/sass_check.lua", "spec/fixtures/hwkit/sass-format-fixture.txt" })
    assert.equal(1, code)
    assert.truthy(out:find("chase_l2%s+exact%s+8%s+branch 1/1, int 1/1, ld_global 1/1, uniform 1/1"))
    assert.truthy(out:find("chase_l1%s+MISSING"))
  end)
end)

describe("hwkit and gpush correlate", function()
  it("a recorded CSV calibrates a preset (correlate --fit --write-preset)", function()
    local dir = helper.temp_dir()
    local _, text = tocsv(fixture, { kernels = (io.popen("pwd"):read("l")) .. "/tools/hwkit/kernels" })
    local path = dir .. "/measured.csv"
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    local c, out, err = helper.gpush_run({ "correlate", path, "--config", "h100-pcie", "--fit",
      "launch.kernel_cycles", "--write-preset", dir .. "/fitted.yaml", "--out", dir })
    assert.equal(0, c, out .. err)
    assert(gpush.config.load(dir .. "/fitted.yaml"))
    os.execute("rm -rf " .. q(dir))
  end)
end)

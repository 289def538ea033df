-- gpush.trace and `gpush trace info`: kernels from Accel-Sim traces.
local trace = require "gpush.trace"
local json = require "gpush.json"
local helper = require "spec_helper"

local mini = table.concat({
  "-kernel name = mini", "-kernel id = 4", "-grid dim = (2,1,1)", "-block dim = (64,1,1)",
  "-shmem = 512", "-nregs = 24", "-binary version = 86", "-accelsim tracer version = 4",
  "-enable lineinfo = 0", "#traces format = x",
  "#BEGIN_TB", "thread block = 0,0,0", "warp = 0", "insts = 3",
  "0010 ffffffff 1 R4 LDG.E.128 1 R2 16 1 0x1000 16",
  "0020 0000ffff 1 R8 FFMA 3 R5 R6 R7 0",
  "0030 ffffffff 0 BAR.SYNC 0 0",
  "warp = 1", "insts = 1", "0030 ffffffff 0 BAR.SYNC 0 0",
  "#END_TB", "" }, "\n")

describe("gpush.trace", function()
  it("summarises a kernel", function()
    local k = assert(trace.parse(mini, "mini.traceg"))
    local info = k:info()
    assert.are.equal("mini", info.kernel)
    assert.are.equal(4, info.launch)
    -- the grid's 2 blocks list block 0 only: the kernel is that block (issue 26)
    assert.are.equal(1, info.thread_blocks)
    assert.are.equal(2, info.warps)
    assert.are.equal(4, info.warp_instructions)
    assert.are.same({ ld_global = 1, fp32 = 1, barrier = 2 }, info.class_mix)
    assert.are.equal(3, info.distinct_pcs)
    assert.are.equal(4, info.transactions_per_memory_instruction) -- 32 x 16 B = 4 lines
    assert.are.equal(16, info.sectors)
    assert.is_near((32 + 16 + 32 + 32) / (4 * 32), info.active_lane_efficiency, 1e-12)
    -- later calls reuse the first call's scan of the arrays: the same numbers, a fresh table
    local again = k:info()
    assert.are.same(info, again)
    assert.are_not.equal(info, again)
  end)

  -- kernel:info() sums the active lanes sixteen bytes at a time (SSE2):
  -- every length around those steps, each lane count once
  it("counts the active lanes of any number of instructions", function()
    for _, n in ipairs { 1, 15, 16, 17, 31, 32, 33, 47, 100 } do
      local lines = { "-kernel name = lanes", "-kernel id = 1", "-grid dim = (1,1,1)", "-block dim = (32,1,1)",
        "-shmem = 0", "-nregs = 8", "-binary version = 86", "-accelsim tracer version = 4",
        "-enable lineinfo = 0", "#traces format = x", "#BEGIN_TB", "thread block = 0,0,0", "warp = 0",
        "insts = " .. n }
      local lanes = 0
      for i = 1, n do
        local active = (i * 7) % 33 -- 0 to 32 lanes, 0 included
        lanes = lanes + active
        lines[#lines + 1] = ("%04x %08x 1 R4 IADD3 1 R2 0"):format(16 * i, active == 32 and 0xffffffff
          or (1 << active) - 1)
      end
      lines[#lines + 1] = "#END_TB"
      lines[#lines + 1] = ""
      local info = assert(trace.parse(table.concat(lines, "\n"), "lanes.traceg")):info()
      assert.are.equal(n, info.warp_instructions)
      assert.are.equal(lanes / (32 * n), info.active_lane_efficiency)
    end
  end)

  it("exposes a warp's instructions with their dependences", function()
    local k = assert(trace.parse(mini, "mini.traceg"))
    local w = k:warp(0)
    assert.are.equal(3, #w)
    assert.are.equal("LDG.E.128", w[1].opcode)
    assert.are.equal(4, w[1].lines)
    assert.are.same({ 1 }, w[2].deps)    -- R5..R7 come from the .128 load
    assert.are.same({ 1 }, w[2].load_deps)
    assert.are.equal("barrier", w[3].class)
    assert.are.equal(1, #k:warp(1))       -- its barrier
    assert.has_error(function() k:warp(2) end) -- block 1 is not in the trace: the kernel is block 0
  end)

  it("reports malformed traces with the file and line", function()
    local k, err = trace.parse(mini:gsub("insts = 3", "insts = 4"), "bad.traceg")
    assert.is_nil(k)
    assert.are.equal("bad.traceg:18: warp 0 of block (0,0,0) has 3 instructions but 'insts = 4'", err)
    local t
    t, err = trace.open("/nonexistent/kernelslist.g")
    assert.is_nil(t)
    assert.are.equal("/nonexistent/kernelslist.g: cannot open: No such file or directory", err)
  end)

  it("filters launches by id, range and name", function()
    local f = trace.filter("2-3,Kernel2,7")
    assert.is_true(f { launch = 2, kernel = "x" })
    assert.is_true(f { launch = 3, kernel = "x" })
    assert.is_true(f { launch = 7, kernel = "x" })
    assert.is_true(f { launch = 9, kernel = "_Z7Kernel2PbS_" })
    assert.is_false(f { launch = 4, kernel = "_Z6KernelP4Node" })
    assert.is_true(trace.filter(nil) { launch = 1, kernel = "a" })
    assert.is_true(trace.filter(5) { launch = 5, kernel = "a" })
  end)
end)

describe("gpush trace info", function()
  local bfs = helper.shared .. "/traces/bfs-rodinia-sm80"

  local function sum_insts(file)
    local sum = 0
    for line in io.lines(file) do
      local n = line:match("^insts = (%d+)")
      if n then
        sum = sum + tonumber(n)
      end
    end
    return sum
  end

  it("prints one JSON object per launch with the contract fields", function()
    if not helper.have_shared_traces() then
      pending("../shared/traces not found: the real-trace checks are skipped")
      return
    end
    local code, out, err = helper.gpush_run { "trace", "info", bfs, "--json" }
    assert.are.equal(0, code, err)
    local launches = json.decode(out)
    assert.are.equal(16, #launches)
    for i, l in ipairs(launches) do
      assert.are.equal(i, l.launch)
      assert.is_string(l.kernel)
      assert.are.equal(8, l.thread_blocks)
      assert.are.equal(128, l.warps)
      assert.are.equal(sum_insts(bfs .. "/kernel-" .. i .. ".traceg"), l.warp_instructions)
    end
  end)

  it("filters with --kernel and prints totals", function()
    if not helper.have_shared_traces() then
      pending("../shared/traces not found: the real-trace checks are skipped")
      return
    end
    local code, out = helper.gpush_run { "trace", "info", bfs, "--kernel", "2-3" }
    assert.are.equal(0, code)
    assert.matches("\n%s+2%s+_Z7Kernel2PbS_S_S_i%s+8%s+128%s+1814 ", out)
    assert.matches("\n%s+3%s+_Z6KernelP4NodePiPbS2_S2_S1_i%s+8%s+128%s+3416 ", out)
    assert.matches("\n total%s+2 launches%s+16%s+256%s+5230 ", out)
    assert.matches("14 host-to-device copies, 159752 bytes", out, 1, true)
  end)

  it("fails cleanly on a bad path, a bad trace and a filter matching nothing", function()
    local code, _, err = helper.gpush_run { "trace", "info", "/nonexistent" }
    assert.are.equal(1, code)
    assert.are.equal("gpush trace: /nonexistent: cannot open: no such trace file or folder\n", err)
    local bad = helper.write_temp(mini:gsub("0x1000", "0xZZ"), ".traceg")
    code, _, err = helper.gpush_run { "trace", "info", bad }
    assert.are.equal(1, code)
    assert.are.equal("gpush trace: " .. bad .. ":15: expected a base address (hex), found '0xZZ'\n", err)
    local ok = helper.write_temp(mini, ".traceg")
    code, _, err = helper.gpush_run { "trace", "info", ok, "--kernel", "nothing" }
    assert.are.equal(1, code)
    assert.matches("no launch in .* matches %-%-kernel nothing", err)
    code = helper.gpush_run { "trace", "info" }
    assert.are.equal(2, code)
    os.remove(bad)
    os.remove(ok)
  end)
end)

describe("gpush trace convert", function()
  it("writes a synthetic kernel as Accel-Sim text that reads back the same", function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "trace", "convert", "suite:sfu_heavy", dir .. "/a.traceg" }
    assert.are.equal(0, code, err)
    assert.matches("wrote .*a%.traceg %(sfu_heavy, launch 1%)", out)
    local written = assert(trace.open(dir .. "/a.traceg"))
    local _, kernel = written:kernels()()
    local back = kernel:info()
    local original = assert(require("gpush.workloads").kernel(require("gpush.workloads").get("sfu_heavy"))):info()
    for _, field in ipairs { "warps", "warp_instructions", "memory_instructions", "cache_lines", "sectors" } do
      assert.are.equal(original[field], back[field], field)
    end
    assert.are.same(original.class_mix, back.class_mix)
    -- written text, read and written again, is identical
    code = helper.gpush_run { "trace", "convert", dir .. "/a.traceg", dir .. "/b.traceg" }
    assert.are.equal(0, code)
    assert.are.equal(helper.read_file(dir .. "/a.traceg"), helper.read_file(dir .. "/b.traceg"))
    os.execute("rm -rf " .. dir)
  end)

  it("writes a folder with kernelslist.g for several launches, and explains misuse", function()
    local dir = helper.temp_dir()
    local code, out = helper.gpush_run { "trace", "convert", "suite", dir .. "/all", "--kernel", "1-2" }
    assert.are.equal(0, code)
    assert.matches("kernel%-2%.traceg %(fma_compute, launch 2%)", out)
    local list = assert(io.open(dir .. "/all/kernelslist.g")):read("a")
    assert.are.equal("kernel-1.traceg\nkernel-2.traceg\n", list)
    local err
    code, _, err = helper.gpush_run { "trace", "convert", "suite", dir .. "/x.traceg" }
    assert.are.equal(1, code)
    assert.are.equal("gpush trace: suite holds more than one launch: give a folder as OUT, or --kernel\n", err)
    code, _, err = helper.gpush_run { "trace", "convert", "suite:nope", dir .. "/x.traceg" }
    assert.are.equal(1, code)
    assert.matches("no workload 'nope' in the suite", err, 1, true)
    os.execute("rm -rf " .. dir)
  end)

  it("goes text -> .gpt -> text without changing a byte", function()
    local dir = helper.temp_dir()
    assert.are.equal(0, (helper.gpush_run { "trace", "convert", "suite:divergent_loop", dir .. "/a.traceg" }))
    assert.are.equal(0, (helper.gpush_run { "trace", "convert", dir .. "/a.traceg", dir .. "/a.gpt" }))
    assert.are.equal(0, (helper.gpush_run { "trace", "convert", dir .. "/a.gpt", dir .. "/b.traceg" }))
    assert.are.equal(helper.read_file(dir .. "/a.traceg"), helper.read_file(dir .. "/b.traceg"))
    local code, out = helper.gpush_run { "trace", "info", dir .. "/a.gpt", "--json" }
    assert.are.equal(0, code)
    local from_gpt = json.decode(out)[1]
    local original = assert(require("gpush.workloads").kernel(require("gpush.workloads").get("divergent_loop"))):info()
    assert.are.equal(original.warp_instructions, from_gpt.warp_instructions)
    assert.are.same(original.class_mix, from_gpt.class_mix)
    local f = assert(io.open(dir .. "/a.gpt", "r+b"))
    f:seek("set", 5000)
    f:write("\255\255\255\255")
    f:close()
    local err
    code, _, err = helper.gpush_run { "trace", "info", dir .. "/a.gpt" }
    assert.are.equal(1, code)
    assert.matches("a%.gpt: checksum mismatch: the file is corrupt", err)
    os.execute("rm -rf " .. dir)
  end)
end)

-- Memory bounded by the largest launch: a multi-launch trace is read one
-- launch at a time, so the peak resident memory of `gpush gpumech` (and of
-- trace info and sim) follows one launch, not the file.
local helper = require "spec_helper"

-- Runs `gpush NAME args...` inside one gpush process and returns its exit
-- code and its peak resident set (VmHWM, KB) as the command left it.
local function peak_kb(name, args)
  local quoted = {}
  for i, a in ipairs(args) do
    quoted[i] = ("%q"):format(a)
  end
  local script = ([[
    local code = require("gpush.cmd.%s").main({ %s }, io.open("/dev/null", "w"), io.stderr)
    for line in io.lines("/proc/self/status") do
      local kb = line:match("^VmHWM:%%s*(%%d+)")
      if kb then print(code, kb) end
    end]]):format(name, table.concat(quoted, ", "))
  local code, out, err = helper.gpush_run({ "-e", script })
  assert.are.equal(0, code, err)
  local status, kb = out:match("^(%d+)%s+(%d+)")
  return tonumber(status), tonumber(kb)
end

describe("memory of multi-launch traces", function()
  if os.getenv("GPUSH_SANITIZED") then
    pending("skipped under sanitizers: their shadow memory makes resident sizes meaningless")
    return
  end

  it("peaks within 1.5x of one launch for four launches (gpumech, sim, trace info)", function()
    -- one launch of the suite's stream_triad (26 MB of text, about 90 MB in
    -- memory with its lane addresses) in four copies (one file listed four
    -- times is refused: each launch needs its own trace file)
    local dir = helper.temp_dir()
    assert.are.equal(0, (helper.gpush_run({ "trace", "convert", "suite:stream_triad", dir .. "/kernel-1.traceg" })))
    local list = assert(io.open(dir .. "/kernelslist.g", "w"))
    list:write("kernel-1.traceg\n")
    for i = 2, 4 do
      assert(os.execute(("cp %s/kernel-1.traceg %s/kernel-%d.traceg"):format(dir, dir, i)))
      list:write(("kernel-%d.traceg\n"):format(i))
    end
    list:close()
    for _, command in ipairs({
      { "gpumech", { "--config", "gtx660ti" } },
      { "sim", { "--config", "gtx660ti" } },
      { "trace", {}, "info" },
    }) do
      local function args(path)
        local a = {}
        if command[3] then
          a[1] = command[3]
        end
        a[#a + 1] = path
        for _, x in ipairs(command[2]) do
          a[#a + 1] = x
        end
        return a
      end
      local code1, one = peak_kb(command[1], args(dir .. "/kernel-1.traceg"))
      local code4, four = peak_kb(command[1], args(dir))
      assert.are.equal(0, code1)
      assert.are.equal(0, code4)
      assert.is_true(one > 40000, ("one launch peaks at %d KB: too small to measure"):format(one))
      assert.is_true(four <= 1.5 * one,
        ("%s: four launches peak at %d KB, one at %d KB (limit 1.5x)"):format(command[1], four, one))
    end
    os.execute("rm -rf " .. dir)
  end)
end)

-- scenarios/gpumech_vs_sim.lua: both models over the same kernels, the
-- relative difference per kernel and its mean absolute value per policy.
local helper = require "spec_helper"

-- The CSV's data rows as tables keyed by the header's column names.
local function csv_rows(text)
  local header, rows = nil, {}
  for line in text:gmatch("[^\n]+") do
    if not line:match("^#") then
      local fields = {}
      for field in line:gmatch("[^,]+") do
        fields[#fields + 1] = field
      end
      if not header then
        header = fields
      else
        local row = {}
        for i, name in ipairs(header) do
          row[name] = tonumber(fields[i]) or fields[i]
        end
        rows[#rows + 1] = row
      end
    end
  end
  return rows
end

describe("scenarios/gpumech_vs_sim.lua", function()
  it("compares GPUMech with the simulator per kernel and policy and averages |difference|", function()
    local dir = helper.temp_dir()
    local args = { "scenarios/gpumech_vs_sim.lua", "--traces", "suite:pointer_chase", "--out", dir, "--quiet",
      "--jobs", "2" }
    local chain = helper.shared .. "/traces/ffma-chain-h100-10"
    local with_chain = helper.have_shared_traces()
    if with_chain then
      args[#args + 1] = "--traces"
      args[#args + 1] = chain
    else
      print("gpumech_vs_sim spec: " .. helper.shared .. "/traces absent; the FFMA-chain check is skipped")
    end
    local code, out, err = helper.gpush_run(args)
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    local rows = csv_rows(helper.read_file(dir .. "/gpumech_vs_sim.csv"))
    assert.are.equal(with_chain and 4 or 2, #rows)
    local sums = {}
    for _, r in ipairs(rows) do
      -- the difference column is (GPUMech - simulator) / simulator (the CSV
      -- rounds cycles to integers and the difference to 1e-6)
      assert.is_near((r.gpumech_cycles - r.sim_cycles) / r.sim_cycles, r.difference, 1 / r.sim_cycles + 1e-6)
      sums[r.policy] = (sums[r.policy] or 0) + math.abs(r.difference)
      if r.kernel == "_Z10ffmaKerneli" then
        -- one warp, a dependent FFMA chain: both models give N x L plus the same overheads
        assert.are.equal(r.sim_cycles, r.gpumech_cycles)
      end
    end
    for policy, sum in pairs(sums) do
      local kernels = #rows // 2
      local mean = ("%.1f%%"):format(100 * sum / kernels)
      assert.matches("| " .. policy .. " | " .. kernels .. " | " .. mean .. " |", out, 1, true)
    end
    assert.matches("| pointer_chase | GTO |", helper.read_file(dir .. "/gpumech_vs_sim.md"), 1, true)
    os.execute("rm -rf " .. dir)
  end)

  it("rejects unknown arguments and bad parameters with a usage message", function()
    local code, _, err = helper.gpush_run { "scenarios/gpumech_vs_sim.lua", "--bogus" }
    assert.are.equal(2, code)
    assert.matches("unknown option '--bogus'", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/gpumech_vs_sim.lua", "--traces", "suite:nope", "--quiet" }
    assert.are.equal(1, code)
    assert.matches("nope", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/gpumech_vs_sim.lua", "--shard", "1/2" }
    assert.are.equal(2, code)
    assert.matches("--shard is not supported here", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/gpumech_vs_sim.lua", "--config", "gtx9999" }
    assert.are.equal(2, code)
    assert.matches("gtx9999", err, 1, true)
  end)
end)

-- The Slurm integration test (#slurm; exclude it with busted --exclude-tags=slurm).
--
-- Starts a throwaway one-node Slurm on localhost with
-- tests/slurm/start_local_slurm.sh, submits the main job sharded three ways
-- through the shipped examples/slurm/sweep.sbatch (a 3-task job array plus a
-- dependent merge job), and checks that the merged CSV holds exactly the rows
-- of the single-process run.  It is pending, with the reason, when the Debian
-- packages (slurm-wlm, munge) are missing, when Slurm does not come up within
-- 30 s, and in the sanitizer run; the daemons are stopped however it ends.
local helper = require "spec_helper"

local START_SECONDS = 30  -- for the node to become idle
local JOB_SECONDS = 120   -- for the array and the merge to finish
local SHARDS = 3
local SWEEP_ARGS = { "--traces", "suite:pointer_chase" }
local q = helper.shell_quote

local function absolute(path)
  local p = io.popen("readlink -f " .. q(path))
  local full = p:read("l")
  p:close()
  return full
end

-- The lines of a CSV file but its `# command:` provenance line, the one
-- that legitimately differs between a merge and a single run (the rest of the
-- stamp, gpush version, sweep identity, base configuration hash, seed and
-- workloads, must agree); also returns that command.
local function lines_but_command(path)
  local lines, command = {}, nil
  for line in io.lines(path) do
    if line:find("^# command: ") then
      command = line
    else
      lines[#lines + 1] = line
    end
  end
  return lines, command
end

local function file_exists(path)
  local f = io.open(path, "rb")
  if f then
    f:close()
  end
  return f ~= nil
end

-- Everything the jobs wrote to their Slurm output files, for failure messages.
local function job_logs(dir)
  local _, out = helper.run("for f in $(find " .. q(dir) .. " -name 'slurm-*.out' | sort); do echo \"== $f\"; tail -n 30 \"$f\"; done")
  return out
end

-- Polls squeue until none of `jobs` is queued or running; true when that
-- happened within `seconds`.
local function wait_for_jobs(env, jobs, seconds)
  local deadline = os.time() + seconds
  repeat
    local code, out = helper.run("squeue -h -o %i -j " .. q(jobs), env)
    if code == 0 and out:match("^%s*$") then
      return true
    end
    os.execute("sleep 0.5")
  until os.time() > deadline
  return false
end

describe("Slurm job array #slurm", function()
  it("runs the Kepler sweep as 3 array tasks whose merge equals the single-process run", function()
    if os.getenv("GPUSH_SANITIZED") == "1" then
      pending("sanitizer run: the Slurm integration test runs in the plain build only "
        .. "(the daemons and jobs would inherit the ASan LD_PRELOAD)")
      return
    end
    local dir = helper.temp_dir()
    local cluster = dir .. "/cluster"
    finally(function()
      helper.run("tests/slurm/start_local_slurm.sh stop " .. q(cluster))
      helper.run("rm -rf " .. q(dir))
    end)

    local code, out, err = helper.run(("tests/slurm/start_local_slurm.sh start %s %d"):format(q(cluster), START_SECONDS))
    if code == 3 then
      pending("Slurm is not installed, the integration test is skipped: " .. err:gsub("%s+$", ""))
      return
    elseif code == 4 then
      pending(("Slurm did not start within %d s, the integration test is skipped: %s")
        :format(START_SECONDS, (err:match("start_local_slurm: [^\n]*") or err)))
      return
    end
    assert.are.equal(0, code, err)
    local env = { SLURM_CONF = assert(out:match("SLURM_CONF=([^\n]+)")) }

    -- Submit the array and the merge through the shipped example.
    env.GPUSH = absolute(helper.gpush)
    env.SWEEP_SHARDS = tostring(SHARDS)
    env.SWEEP_OUT = dir .. "/array"
    local words = { "bash", "examples/slurm/sweep.sbatch" }
    for _, a in ipairs(SWEEP_ARGS) do
      words[#words + 1] = q(a)
    end
    code, out, err = helper.run(table.concat(words, " "), env)
    assert.are.equal(0, code, err)
    local array, merge = out:match("as array job (%d+), merge job (%d+)")
    assert.is_truthy(array, out)

    -- The single-process reference runs meanwhile.
    local single = dir .. "/single"
    local args = { "scenarios/kepler_sweep.lua", "--out", single, "--quiet" }
    for _, a in ipairs(SWEEP_ARGS) do
      args[#args + 1] = a
    end
    local ref_code, _, ref_err = helper.gpush_run(args)
    assert.are.equal(0, ref_code, ref_err)

    assert.is_true(wait_for_jobs(env, array .. "," .. merge, JOB_SECONDS),
      ("the jobs did not finish within %d s:\n%s"):format(JOB_SECONDS, job_logs(dir)))
    local _, state = helper.run("scontrol show job " .. merge, env)
    assert.are.equal("COMPLETED", state:match("JobState=(%S+)"),
      "merge job: " .. (state:match("JobState=[^\n]*") or state) .. "\n" .. job_logs(dir))
    for i = 1, SHARDS do
      local partial = ("%s/shards/kepler_sweep.shard-%d-of-%d.json"):format(env.SWEEP_OUT, i, SHARDS)
      assert.is_true(file_exists(partial), partial .. " missing\n" .. job_logs(dir))
    end

    local merged, merged_command = lines_but_command(env.SWEEP_OUT .. "/kepler_sweep.csv")
    local reference, single_command = lines_but_command(single .. "/kepler_sweep.csv")
    assert.matches("^# command: gpush merge ", merged_command)
    assert.matches("^# command: gpush scenarios/kepler_sweep.lua ", single_command)
    -- pointer_chase x 54 points x 2 GPUMech policies at least, plus the
    -- stamp and the header.
    local rows = 0
    for _, line in ipairs(reference) do
      rows = rows + (line:find("^suite:pointer_chase,") and 1 or 0)
    end
    assert.is_true(rows >= 108, ("only %d pointer_chase rows in the single-process CSV"):format(rows))
    assert.are.equal(#reference, #merged)
    for i = 1, #reference do
      assert.are.equal(reference[i], merged[i], ("line %d differs"):format(i))
    end
  end)
end)

-- gpush.parallel: work on forked worker processes, read back line by line.
-- The experiment engine's workers and parallel.map share its poll loop:
--
--   local values = parallel.map(#bases, function(i) return train(bases[i]) end, { jobs = 2 })
--
-- Workers are tables {pid, pipe, buffer = "", open = true} whose pipes carry
-- one JSON record per line.
local core = require "gpush.core"
local json = require "gpush.json"
local progress_new = require("gpush.progress").new

local M = {}

-- Splits complete lines off a worker's buffer.
local function drain_lines(worker, take)
  while true do
    local nl = worker.buffer:find("\n", 1, true)
    if not nl then
      return
    end
    local line = worker.buffer:sub(1, nl - 1)
    worker.buffer = worker.buffer:sub(nl + 1)
    take(line)
  end
end

-- One round of reading the open workers' pipes (waiting up to a second):
-- complete lines go to take, a closed pipe marks its worker done.  Returns
-- false when no worker is open any more.
function M.poll_round(workers, take)
  local open, pipes = {}, {}
  for _, w in ipairs(workers) do
    if w.open then
      open[#open + 1], pipes[#pipes + 1] = w, w.pipe
    end
  end
  if #open == 0 then
    return false
  end
  local ready, err = core.proc_poll(pipes, 1000)
  if not ready and err ~= "interrupted" then
    error("gpush.parallel: " .. err, 0)
  end
  for i, w in ipairs(open) do
    if ready and ready[i] then
      local chunk = assert(w.pipe:read())
      if chunk == "" then
        w.open = false
        w.pipe:close()
      else
        w.buffer = w.buffer .. chunk
        drain_lines(w, take)
      end
    end
  end
  return true
end

-- Calls fn(i) for i = 1..n and returns the values in order, on `jobs`
-- forked workers (worker j takes i = j, j + jobs, ...) with the engine's
-- progress display; for work that is not a (kernel, model, point) sweep,
-- such as training one model per base configuration.  Every value passes
-- through the JSON encoding (numbers as %.17g, read back exactly), in
-- process too, so any number of jobs gives the same values.  fn raises on
-- failure; map raises "label: item i: message" after stopping the workers.
-- opts: jobs (default 1; 0 = every core), quiet, label, progress_stream.
function M.map(n, fn, opts)
  opts = opts or {}
  local jobs = opts.jobs or 1
  if jobs == 0 then
    jobs = core.proc_cpus()
  end
  jobs = math.max(1, math.min(jobs, n))
  local label = opts.label or "map"
  local progress = progress_new(n, { label = label, stream = opts.progress_stream, quiet = opts.quiet })
  local values, problem = {}, nil
  local function take(line)
    local record = assert(json.decode(line))
    if record.error then
      problem = problem or ("%s: item %d: %s"):format(label, record.i, record.error)
    else
      values[record.i] = record.value
    end
    progress:step(record.error ~= nil)
  end
  local function encode(i)
    local ok, value = pcall(fn, i)
    if ok then
      return json.encode { i = i, value = value }
    end
    return json.encode { i = i, error = tostring(value) }
  end
  local guard = core.sigint_catch()
  local ok, err = pcall(function()
    if jobs == 1 then
      for i = 1, n do
        if core.sigint_pending() or problem then
          break
        end
        take(encode(i))
      end
      return
    end
    local workers = {}
    for j = 1, jobs do
      local process, pipe = core.proc_fork()
      if process == nil then
        error(label .. ": " .. pipe, 0)
      end
      if not process then -- in the worker
        local done = pcall(function()
          for i = j, n, jobs do
            assert(pipe:write(encode(i) .. "\n"))
          end
        end)
        pipe:close()
        core.proc_exit(done and 0 or 1)
      end
      workers[#workers + 1] = { process = process, pipe = pipe, buffer = "", open = true }
    end
    while not core.sigint_pending() and not problem and M.poll_round(workers, take) do
    end
    for _, w in ipairs(workers) do
      if w.open then
        w.process:signal("TERM")
        w.pipe:close()
      end
      w.process:wait()
    end
  end)
  local interrupted = core.sigint_pending()
  guard:release()
  if not ok then
    error(err, 0)
  end
  progress:finish()
  if problem then
    error(problem, 0)
  end
  if interrupted then
    error(label .. ": interrupted (SIGINT)", 0)
  end
  for i = 1, n do
    if values[i] == nil then
      error(("%s: item %d was never computed (a worker died)"):format(label, i), 0)
    end
  end
  return values
end

return M

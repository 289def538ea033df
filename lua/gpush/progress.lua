-- gpush.progress: a progress reporter for long runs (sweeps, corpora).
--
--   local p = progress.new(total, { label = "sweep" })
--   p:step(failed)   -- after each finished task
--   p:finish()
local core = require "gpush.core"

local M = {}

local Progress = {}
Progress.__index = Progress

-- A progress reporter for `total` tasks: a redrawn bar with rate and ETA
-- when the stream is a terminal, a plain line every `interval` seconds
-- (default 5) otherwise, nothing when quiet.  opts: label, stream (default
-- io.stderr), tty (default: whether stderr is a terminal), quiet, clock.
function M.new(total, opts)
  opts = opts or {}
  local stream = opts.stream or io.stderr
  local tty = opts.tty
  if tty == nil then
    tty = stream == io.stderr and core.proc_isatty(2)
  end
  local clock = opts.clock or core.now
  local p = setmetatable({ total = total, done = 0, failed = 0, label = opts.label or "sweep",
    stream = stream, tty = tty, quiet = opts.quiet, clock = clock, interval = opts.interval or 5 }, Progress)
  p.started = clock()
  p.last = p.started
  return p
end

local function duration(seconds)
  if seconds >= 3600 then
    return ("%dh%02dm"):format(seconds // 3600, seconds % 3600 // 60)
  elseif seconds >= 60 then
    return ("%dm%02ds"):format(seconds // 60, math.floor(seconds % 60))
  end
  return ("%.0fs"):format(seconds)
end

function Progress:status()
  local elapsed = self.clock() - self.started
  local rate = elapsed > 0 and self.done / elapsed or 0
  local eta = rate > 0 and (self.total - self.done) / rate or 0
  return rate, eta, elapsed
end

function Progress:draw(final)
  local rate, eta, elapsed = self:status()
  local failed = self.failed > 0 and (", %d failed"):format(self.failed) or ""
  if self.tty then
    local width = 30
    local filled = self.total > 0 and math.floor(width * self.done / self.total) or width
    self.stream:write(("\r%s [%s%s] %d/%d %5.1f/s ETA %s%s\027[K"):format(self.label, ("#"):rep(filled),
      ("."):rep(width - filled), self.done, self.total, rate, duration(eta), failed))
    if final then
      self.stream:write("\n")
    end
  elseif final then
    self.stream:write(("%s: %d of %d done in %s (%.1f/s)%s\n"):format(self.label, self.done, self.total,
      duration(elapsed), rate, failed))
  else
    self.stream:write(("%s: %d of %d (%.0f%%), %.1f/s, ETA %s%s\n"):format(self.label, self.done, self.total,
      self.total > 0 and 100 * self.done / self.total or 100, rate, duration(eta), failed))
  end
  self.stream:flush()
end

-- Counts one finished task (failed or not) and redraws when due.
function Progress:step(failed)
  self.done = self.done + 1
  if failed then
    self.failed = self.failed + 1
  end
  if self.quiet then
    return
  end
  local now = self.clock()
  if now - self.last >= (self.tty and 0.1 or self.interval) then
    self.last = now
    self:draw(false)
  end
end

function Progress:finish()
  if not self.quiet then
    self:draw(true)
  end
end

return M

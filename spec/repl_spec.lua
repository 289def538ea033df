-- The interactive prompt on a real pseudo-terminal: `script` (util-linux,
-- always present on Debian) runs `gpush -i` on a pty and copies what the
-- spec writes into a FIFO to it, keys included (Ctrl-C is byte 3, the
-- terminal turns it into SIGINT).  Every step waits until the screen log
-- shows the answer (up to two minutes, polling), so a loaded machine makes
-- the spec slower, never wrong.
local helper = require "spec_helper"

local WAIT_SECONDS = 120

local Session = {}
Session.__index = Session

-- Starts `gpush -i` on a pty; `history` is its history file (default: a
-- fresh one in the session's folder).
local function start(history)
  local dir = helper.temp_dir()
  local self = setmetatable({ dir = dir, log = dir .. "/screen.log", seen = 0 }, Session)
  assert(os.execute("mkfifo " .. helper.shell_quote(dir .. "/keys")))
  local command = ("GPUSH_HISTORY=%s script -qfec %s %s < %s > /dev/null 2>&1 &"):format(
    helper.shell_quote(history or (dir .. "/history")), helper.shell_quote(helper.shell_quote(helper.gpush) .. " -i"),
    helper.shell_quote(self.log), helper.shell_quote(dir .. "/keys"))
  assert(os.execute(command))
  self.keys = assert(io.open(dir .. "/keys", "w"))
  return self
end

function Session:type(text)
  self.keys:write(text)
  self.keys:flush()
end

-- The screen log so far.
function Session:screen()
  local f = io.open(self.log, "rb")
  local text = f and f:read("a") or ""
  if f then
    f:close()
  end
  return text
end

-- Waits until `text` appears in the log after what earlier waits consumed;
-- fails with the screen when it does not within WAIT_SECONDS.
function Session:expect(text)
  local deadline = os.time() + WAIT_SECONDS
  while true do
    local screen = self:screen()
    local at, stop = screen:find(text, self.seen + 1, true)
    if at then
      self.seen = stop
      return
    end
    if os.time() > deadline then
      error(("'%s' did not appear within %d s; the screen:\n%s"):format(text, WAIT_SECONDS, screen), 2)
    end
    os.execute("sleep 0.1")
  end
end

function Session:close()
  self:type("\4") -- Ctrl-D at the prompt leaves
  self.keys:close()
  local deadline = os.time() + WAIT_SECONDS
  while not self:screen():find("\n[^\n]*$", 1) and os.time() < deadline do
    os.execute("sleep 0.1")
  end
end

describe("gpush -i on a terminal", function()
  local code, version = helper.gpush_run({ "--version" })
  assert.are.equal(0, code)
  local editing = version:match("line editing: libedit") ~= nil

  it("has gpush loaded, and Ctrl-C interrupts the running chunk, not the session", function()
    local s = start()
    s:expect("is loaded; `help` tells more; Ctrl-C interrupts")
    s:type('x = 41\n')
    s:type('print("sm:" .. gpush.config.load("a100").sm.count)\n')
    s:expect("sm:108")
    s:type('print("loop" .. "ing") while true do end\n')
    s:expect("looping")
    s:type("\3")
    s:expect("gpush: interrupted (Ctrl-C)")
    s:type('print("after:" .. x + 1)\n')
    s:expect("after:42")
    -- Ctrl-C at the prompt discards the chunk being typed, even an incomplete one
    s:type("for i = 1, 3 do\n")
    s:expect(">> ")
    s:type("\3")
    s:expect("\n> ") -- a fresh prompt
    s:type('print("fresh:" .. 7 * 6)\n')
    s:expect("fresh:42")
    s:close()
    os.execute("rm -rf " .. s.dir)
  end)

  it("has help, the modules as globals, and prints the message of a nil, message return", function()
    local s = start()
    s:expect("`help` tells more")
    s:type("help\n")
    s:expect("gpush -i: Lua 5.4 with gpush loaded.")
    s:expect("help(x)")
    s:type('config.load("a10")\n')
    s:expect("nil -- unknown preset 'a10' (did you mean 'a100'?)")
    s:type('print("mshrs:" .. config.load("gtx660ti").l1.mshrs)\n')
    s:expect("mshrs:64")
    s:close()
    os.execute("rm -rf " .. s.dir)
  end)

  it("completes Lua names with Tab: globals, gpush.NAME and a module's fields (libedit)", function()
    if not editing then
      pending("built without libedit (Debian: libedit-dev): no completion to test")
      return
    end
    local s = start()
    s:expect("`help` tells more")
    s:type('print("tab:" .. conf\t.lo\t("a100").sm.count)\n') -- config.load
    s:expect("tab:108")
    s:type('print("dot:" .. gpush.worklo\t.get("stream_triad").name)\n') -- gpush.workloads
    s:expect("dot:stream_triad")
    s:close()
    os.execute("rm -rf " .. s.dir)
  end)

  it("edits lines and keeps history across sessions (libedit)", function()
    if not editing then
      pending("built without libedit (Debian: libedit-dev): no line editing to test")
      return
    end
    local s = start()
    s:expect("is loaded; `help` tells more; Ctrl-C interrupts")
    s:type('print("echo:" .. 20 + 1)\n')
    s:expect("echo:21")
    s:type("\27[A\n") -- Up: the line again
    s:expect("echo:21")
    s:type('print("typo:" .. 1 + 1)') -- then Ctrl-A, Ctrl-K: kill the line, type another
    s:type("\1\11")
    s:type('print("fixed:" .. 3)\n')
    s:expect("fixed:3")
    assert.is_nil(s:screen():find("typo:2", 1, true))
    s:close()
    local history = s.dir .. "/history"
    local deadline = os.time() + WAIT_SECONDS
    local function saved()
      local f = io.open(history, "rb")
      local text = f and f:read("a") or ""
      if f then
        f:close()
      end
      return text:find("fixed", 1, true) ~= nil
    end
    while not saved() and os.time() < deadline do
      os.execute("sleep 0.1")
    end
    -- a new session finds the last line with Up
    local again = start(history)
    again:expect("is loaded; `help` tells more; Ctrl-C interrupts")
    again:type("\27[A\n")
    again:expect("fixed:3")
    again:close()
    os.execute("rm -rf " .. s.dir .. " " .. again.dir)
  end)
end)

-- The parsed-trace cache (csrc/core/trace_cache.c, gpush.trace): a launch
-- read again comes from its .gpt entry with the same kernel; an edited
-- trace, a damaged entry or another setting never yields a stale kernel.
local helper = require "spec_helper"
local core = require "gpush.core"
local trace = require "gpush.trace"
local workloads = require "gpush.workloads"

-- A folder holding one small text trace (fma_chain, 61,680 warp instructions).
local function fixture()
  local dir = helper.temp_dir()
  local k = assert(workloads.kernel(workloads.get("fma_chain")))
  assert(k:write_text(dir .. "/k.traceg"))
  k:close()
  return dir, dir .. "/k.traceg"
end

local function entries(dir)
  local list = {}
  for _, name in ipairs(core.list_dir(dir) or {}) do
    if name:match("%.gpt$") then
      list[#list + 1] = name
    end
  end
  table.sort(list)
  return list
end

-- Loads the trace's one launch with the cache in `cache`; returns the
-- kernel's digest and whether it came from the cache.
local function load(path, cache, mb)
  local t = assert(trace.open(path, { cache = false }))
  assert(t.reader:set_cache(cache, mb or 0))
  assert(t.reader:next())
  local k = assert(t.reader:load())
  local digest, hit = core.kernel_digest(k), t.reader:cache_hits() == 1
  k:close()
  t:close()
  return digest, hit
end

describe("the parsed-trace cache", function()
  it("maps a launch read again, the same kernel as parsed", function()
    local dir, path = fixture()
    local cache = dir .. "/cache"
    assert(core.mkdir(cache))
    local parsed = core.kernel_digest(assert(trace.parse(helper.read_file(path), "k")))
    local first, hit1 = load(path, cache)
    assert.is_false(hit1)
    assert.are.equal(1, #entries(cache))
    local second, hit2 = load(path, cache)
    assert.is_true(hit2)
    assert.are.equal(parsed, first)
    assert.are.equal(parsed, second)
  end)

  it("never serves an edited trace or a damaged entry", function()
    local dir, path = fixture()
    local cache = dir .. "/cache"
    assert(core.mkdir(cache))
    local before = load(path, cache)
    local old_entry = entries(cache)[1]
    -- the same trace with one instruction's PC changed: another entry, another kernel
    local text = helper.read_file(path):gsub("\n0010 ", "\n0018 ", 1)
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
    local edited, hit = load(path, cache)
    assert.is_false(hit)
    assert.are_not.equal(before, edited)
    assert.are.equal(2, #entries(cache))
    -- a damaged entry (a byte flipped in its payload) is parsed again and replaced
    local names = entries(cache)
    local name = cache .. "/" .. (names[1] == old_entry and names[2] or names[1])
    local bytes = helper.read_file(name)
    local g = assert(io.open(name, "wb"))
    g:write(bytes:sub(1, 5000), string.char((bytes:byte(5001) + 1) % 256), bytes:sub(5002))
    g:close()
    local again1, hit1 = load(path, cache)
    local again2, hit2 = load(path, cache)
    assert.is_false(hit1)
    assert.is_true(hit2)
    assert.are.equal(edited, again1)
    assert.are.equal(edited, again2)
  end)

  it("parses again an entry of an older .gpt format instead of failing", function()
    -- format 4 summed with the older checksum; format 5 with gp_checksum: an
    -- entry left by an older build is replaced, never misread
    local dir, path = fixture()
    local cache = dir .. "/cache"
    assert(core.mkdir(cache))
    local parsed = load(path, cache)
    local name = cache .. "/" .. entries(cache)[1]
    local bytes = helper.read_file(name)
    assert.are.equal(5, bytes:byte(9)) -- the format version, little-endian, after the magic
    local g = assert(io.open(name, "wb"))
    g:write(bytes:sub(1, 8), string.char(4), bytes:sub(10))
    g:close()
    local again1, hit1 = load(path, cache)
    local again2, hit2 = load(path, cache)
    assert.is_false(hit1)
    assert.is_true(hit2)
    assert.are.equal(parsed, again1)
    assert.are.equal(parsed, again2)
    assert.are.equal(5, helper.read_file(name):byte(9))
  end)

  it("keeps the folder under its size, least recently used first", function()
    local dir, path = fixture()
    local cache = dir .. "/cache"
    assert(core.mkdir(cache))
    load(path, cache, 1)
    local one = entries(cache)
    assert.are.equal(1, #one)
    -- a second trace under a 1 MiB cap: the older entry goes (each is a megabyte or more)
    local other = dir .. "/other.traceg"
    local k = assert(workloads.kernel(workloads.get("divergent_loop")))
    assert(k:write_text(other))
    k:close()
    load(other, cache, 1)
    local left = entries(cache)
    assert.are.equal(1, #left)
    assert.are_not.equal(one[1], left[1])
  end)

  it("never serves a compressed launch past a cap lower than the one it was parsed under", function()
    local dir, path = fixture()
    assert(os.execute(("gzip -k %s"):format(helper.shell_quote(path))))
    local cache = dir .. "/cache"
    -- parsed under the default cap and kept; fma_chain holds more than 1 MiB of text
    local code = helper.gpush_run({ "trace", "info", path .. ".gz" }, { GPUSH_TRACE_CACHE = cache })
    assert.are.equal(0, code)
    assert.are.equal(1, #entries(cache))
    local code2, _, err = helper.gpush_run({ "trace", "info", path .. ".gz" },
      { GPUSH_TRACE_CACHE = cache, GPUSH_TRACE_LIMIT_MB = "1" })
    assert.are.equal(1, code2)
    assert.matches("more than 1 MiB, gpush.s limit for a compressed trace", err)
  end)

  it("is on by default in GPUSH_TRACE_CACHE's folder, off with GPUSH_TRACE_CACHE=off", function()
    local dir, path = fixture()
    local cache = dir .. "/by-env"
    local code, out1 = helper.gpush_run({ "trace", "info", path, "--json" }, { GPUSH_TRACE_CACHE = cache })
    assert.are.equal(0, code)
    assert.are.equal(1, #entries(cache))
    local code2, out2 = helper.gpush_run({ "trace", "info", path, "--json" }, { GPUSH_TRACE_CACHE = cache })
    assert.are.equal(0, code2)
    assert.are.equal(out1, out2)
    local off = dir .. "/off"
    assert(core.mkdir(off))
    local code3, out3 = helper.gpush_run({ "trace", "info", path, "--json" },
      { GPUSH_TRACE_CACHE = "off", XDG_CACHE_HOME = off })
    assert.are.equal(0, code3)
    assert.are.equal(out1, out3)
    assert.is_nil(core.stat(off .. "/gpush"))
  end)
end)

-- gpush.bounds: first-principles lower bounds on a kernel's cycles, and the
-- one that binds.  The formulas live once, in C (csrc/core/bounds.c); this
-- module builds the machine from a configuration and reports.
--
--   local b = assert(bounds.kernel(kernel, cfg))      -- from a built kernel
--   b.binds, b.bound, b.total, b.cycles.dram, b.counts.dram_bytes
--   local b = bounds.compute(counts, cfg, geometry)   -- from counts (a descriptor)
--   print(bounds.format(b, cfg))
--
-- The bounds (docs/bounds.md; cycles of the kernel body, launch overhead
-- apart): issue, the per-unit pipes (int, fma, fp64, sfu, tensor, uniform,
-- control), shared (bank passes), lsu, l2 (request rate), dram (bytes /
-- bandwidth), mshr (Little's law), latency (the longest warp's dependence
-- path, between its block's launch and retirement), blocks (block slots as
-- servers) and dispatch (the front end: the GPU-wide dispatcher, each SM's
-- launcher one block at a time; docs/frontend.md).  `total` adds the kernel
-- launch; no model may predict fewer cycles than `total`.
--
-- Every bound in `cycles` is hard; l2, mshr and dram count what no
-- interleaving or block placement avoids (each distinct line loaded once;
-- stores written to DRAM beyond what the caches hold at the end).  The
-- functional replay's l2 and mshr (every L1 miss, merged or not) and dram
-- (its order's bytes, write-backs included) are `estimates`; `expected` is `cycles` with them in place, `expect` the
-- expected binding resource (what the workload suite labels a kernel by)
-- and `expect_total` its cycles with the launch.
local config = require "gpush.config"
local core = require "gpush.core"
local machine = require "gpush.machine"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"

local M = {}

-- The bounds in the C core's order (ties go to the first).
M.NAMES = { "issue", "int", "fma", "fp64", "sfu", "tensor", "uniform", "control", "shared", "lsu",
  "l2", "dram", "mshr", "latency", "blocks", "dispatch" }

-- One line per bound: what it divides by what.
M.DESCRIPTIONS = {
  issue = "warp instructions / (SMs x schedulers x issue width)",
  int = "integer ALU: instructions x interval / (SMs x schedulers)",
  fma = "FP32 / IMAD pipe: instructions x interval / (SMs x schedulers)",
  fp64 = "FP64 pipe: instructions x interval / (SMs x schedulers)",
  sfu = "special-function unit: instructions x interval / (SMs x schedulers)",
  tensor = "tensor pipe: instructions x interval / (SMs x schedulers)",
  uniform = "uniform datapath: instructions x interval / (SMs x schedulers)",
  control = "branch / other / barrier pipe: instructions x interval / (SMs x schedulers)",
  shared = "shared-memory bank passes / (SMs x schedulers)",
  lsu = "LSU cycles (line requests, bank passes, other) / (SMs x schedulers)",
  l2 = "L2 requests (each loaded line once, stores, atomics) x l2.interval / l2.slices",
  dram = "DRAM bytes no interleaving avoids (each loaded line once, stores beyond the caches) / bytes per cycle",
  mshr = "Little's law: round trips of each loaded line once / (SMs x l1.mshrs)",
  latency = "the longest warp's dependence path (in order, one per cycle), after its block's launch and the SM's warm-up, "
    .. "before its drain",
  blocks = "warm-up + sum of block lifetimes (launch, path, drain) / (SMs x blocks per SM)",
  dispatch = "the later of the last block's dispatch (blocks - 1 intervals) and launch, and the busiest SM's launches "
    .. "(one at a time), + the shortest block path and drain",
}

-- The machine of a configuration (gpush.machine) and the occupancy of a
-- kernel (a gpush.kernel, or a geometry { threads =, registers =,
-- shared_bytes = }) on it: what core.sim_run and core.bounds_* take.
function M.machine(cfg, kernel)
  return machine.of(cfg, 2), (occupancy.for_kernel(cfg, kernel))
end

-- Adds what every report carries: the launch overhead, the time and the
-- bounds ranked from the largest.
local function finish(r, cfg, blocks_per_sm)
  r.launch = cfg.launch.kernel_cycles
  r.blocks_per_sm = blocks_per_sm
  r.expected = {}
  for name, cycles in pairs(r.cycles) do
    r.expected[name] = r.estimates[name] or cycles
  end
  r.expect_total = r.expect_cycles + r.launch
  r.time_us = r.total / cfg.clock.core_mhz
  local ranked = {}
  for i, name in ipairs(M.NAMES) do
    ranked[i] = { name = name, cycles = r.cycles[name], order = i }
  end
  table.sort(ranked, function(a, b)
    if a.cycles ~= b.cycles then
      return a.cycles > b.cycles
    end
    return a.order < b.order
  end)
  r.ranked = ranked
  return r
end

-- Parameters the counts do not depend on (only the formulas read them): a
-- sweep over them reuses one kernel pass.
local COUNT_FREE = {
  ["sm.schedulers"] = true, ["sm.issue_width"] = true, ["l1.mshrs"] = true,
  ["launch.kernel_cycles"] = true, ["launch.dispatch_cycles"] = true, ["launch.block_cycles"] = true,
  ["launch.warp_cycles"] = true, ["launch.drain_cycles"] = true, ["launch.warmup_cycles"] = true,
  ["dram.bandwidth_gbs"] = true, ["dram.efficiency"] = true, ["dram.achievable_gbs"] = true,
  ["clock.mem_mhz"] = true, ["dram.bus_bits"] = true,
  ["dram.transfers_per_clock"] = true, ["dram.channels"] = true, ["l2.interval"] = true,
}

-- Parameters that reach the counts only through the occupancy (the blocks
-- an SM holds): the kernel pass reads the occupancy only as the L1 bytes a
-- unified L1 leaves beside the blocks' shared memory (gp_machine_timed);
-- the functional replay's totals, which do depend on it, are the
-- per-occupancy part (with_totals).
local OCCUPANCY_ONLY = {
  ["sm.max_warps"] = true, ["sm.max_blocks"] = true, ["sm.max_threads"] = true,
  ["sm.max_block_threads"] = true, ["sm.registers"] = true, ["sm.register_alloc_unit"] = true,
  ["sm.max_registers_per_thread"] = true, ["sm.shared_alloc_bytes"] = true, ["sm.shared_kb"] = true,
}

-- The parameters a key of counts_key reads, sorted: without COUNT_FREE's,
-- and also without OCCUPANCY_ONLY's for the kernel pass (the schema's paths
-- are fixed once gpush.config is loaded, so each list is built once; a
-- sweep's points spent a third of their GPUMech time sorting them anew).
-- Each as { paths, prefixes ("path="), at (its place in a check token) }.
local key_paths = {}
local function paths_of_key(pass)
  local list = key_paths[pass]
  if not list then
    local token_at = {}
    for i, path in ipairs(config.token_paths()) do
      token_at[path] = i
    end
    list = { paths = {}, prefixes = {}, at = {} }
    for _, path in ipairs(config.paths()) do
      if not (COUNT_FREE[path] or (pass and OCCUPANCY_ONLY[path])) then
        list.paths[#list.paths + 1] = path
      end
    end
    table.sort(list.paths)
    for i, path in ipairs(list.paths) do
      list.prefixes[i], list.at[i] = path .. "=", token_at[path]
    end
    key_paths[pass] = list
  end
  return list
end

-- cfg -> { token = config.check_token(cfg), [pass] = its parameters' part
-- of a key } (weak keys).  Every caller has checked cfg in the same call
-- (machine.of), so while the token is the same the values are those the
-- part was built from; a sweep's point asked for it from every model at
-- every launch, and building it (the flat view, a string per parameter)
-- was a fifth of a cached GPUMech point's instructions.
local parts_built = setmetatable({}, { __mode = "k" })

-- The text "path=value;..." of the parameters `keyed` lists (paths_of_key)
-- as cfg holds them.  A checked cfg holds its token's values (the check
-- wrote them back), so they are read from the token, a list, in C
-- (core.bounds_key_text, the same text) without config.flatten's walk of
-- every path and a string per parameter (16 ms of the main job's 864 sweep
-- points, each a configuration of its own); an unchecked one is walked.
local function key_text(cfg, token, keyed)
  if token then
    return core.bounds_key_text(token, keyed.at, keyed.prefixes)
  end
  local flat, parts = config.flatten(cfg), {}
  for i, path in ipairs(keyed.paths) do
    parts[i] = keyed.prefixes[i] .. tostring(flat[path])
  end
  return table.concat(parts, ";")
end

-- Each parameter text key_text built -> a short id ("#n") that stands for
-- it in counts_key's keys: the text is 1.6 KB on gtx660ti, and a key
-- holding it was built, hashed and compared byte by byte at every lookup
-- (a sweep looks its counts up at every point).  Ids are never reused, so
-- forgetting the texts (past M.KEY_TEXTS of them) costs a kernel pass
-- again, never a wrong key.
M.KEY_TEXTS = 4096
local text_ids, text_count, last_id = {}, 0, 0

local function id_of(text)
  local id = text_ids[text]
  if id == nil then
    if text_count >= M.KEY_TEXTS then
      text_ids, text_count = {}, 0
    end
    last_id = last_id + 1
    id = "#" .. last_id
    text_ids[text], text_count = id, text_count + 1
  end
  return id
end

-- The parameters' part of counts_key's keys for cfg (`pass`: the kernel
-- pass's list, paths_of_key): the id of their text.
local function key_parts(cfg, pass)
  local token, memo = config.check_token(cfg), parts_built[cfg]
  if memo == nil or memo.token ~= token or token == nil then
    memo = { token = token }
    parts_built[cfg] = memo
  end
  local id = memo[pass]
  if id == nil then
    id = id_of(key_text(cfg, token, paths_of_key(pass)))
    memo[pass] = id
  end
  return id
end

-- A kernel's counts on a configuration, as a cache key: every parameter but
-- COUNT_FREE's, and the occupancy (`blocks_per_sm`); or, for the kernel
-- pass alone (`l1_bytes` given: the L1 the pass sees), every parameter but
-- COUNT_FREE's and OCCUPANCY_ONLY's, and those L1 bytes.
local function counts_key(kernel, cfg, blocks_per_sm, l1_bytes)
  if l1_bytes then
    return ("bounds-pass|%s|l1=%s|%s"):format(tostring(kernel), tostring(l1_bytes), key_parts(cfg, true))
  end
  return ("bounds|%s|%d|%s"):format(tostring(kernel), blocks_per_sm, key_parts(cfg, false))
end

-- The counts of one occupancy from another occupancy's kernel pass (the same
-- pass key): a copy with the functional replay's totals in place, the
-- values gp_bounds_count takes from its memory result (read_functional_totals
-- in csrc/lua/l_bounds.c converts them alike).
local function with_totals(pass, functional)
  local l2 = functional.l2
  if type(l2) ~= "table" then
    error("bounds: the functional result's 'l2' must be a table of cache counts, got " .. type(l2), 4)
  end
  local counts = {}
  for k, v in pairs(pass) do
    counts[k] = v
  end
  counts.l2_requests = (l2.accesses or 0) + 0.0
  counts.mshr_requests = (functional.mshr_requests or 0) + 0.0
  counts.mshr_dram_requests = (functional.mshr_dram_requests or 0) + 0.0
  counts.dram_bytes = ((functional.dram_bytes_read or 0) + (functional.dram_bytes_written or 0)) + 0.0
  return counts
end

-- The functional result a caller passed, checked against the memory
-- configuration the bounds would replay with (misuse raises).
local function check_functional(functional, m, blocks_per_sm, shared_bytes, cfg)
  if type(functional) ~= "table" or type(functional.params) ~= "table" then
    error("gpush.bounds.kernel: 'functional' must be memsim.functional's result, got " .. type(functional), 5)
  end
  local own = m:memsim(math.max(1, blocks_per_sm), shared_bytes)
  if not memsim.params_equal(functional.params, own) then
    error(("gpush.bounds.kernel: the functional result was replayed with other memory parameters "
      .. "than '%s' gives this kernel"):format(cfg._name or "?"), 5)
  end
  return functional
end

-- The counts `cache` holds for a built kernel on a configuration whose
-- machine `m` holds `blocks_per_sm` of its blocks: those of this occupancy,
-- or (given `functional`, memsim.functional's result for this kernel,
-- machine and occupancy) another occupancy's kernel pass with its totals.
-- Returns the counts, or nil and the `functional` checked.
local function find_counts(kernel, cfg, m, blocks_per_sm, cache, functional, shared_bytes)
  local key = cache and counts_key(kernel, cfg, blocks_per_sm)
  local counts = key and cache[key]
  if counts then
    return counts
  end
  if functional then
    shared_bytes = shared_bytes or kernel:info().shared_bytes_per_block
    functional = check_functional(functional, m, blocks_per_sm, shared_bytes, cfg)
    -- a sweep over the occupancy reuses the kernel pass, which only the L1
    -- size the blocks leave can change
    local pass_key = key and counts_key(kernel, cfg, blocks_per_sm, functional.params.l1_bytes)
    if pass_key and cache[pass_key] then
      counts = with_totals(cache[pass_key], functional)
      cache[key] = counts
      return counts
    end
  end
  return nil, functional
end

-- The counts `cache` holds (find_counts), or nil: what M.counts would give
-- without counting.
function M.cached_counts(kernel, cfg, m, blocks_per_sm, cache, functional, shared_bytes)
  return (find_counts(kernel, cfg, m, blocks_per_sm, cache, functional, shared_bytes))
end

-- Keeps counts counted now (from `functional`, when given) in `cache`
-- where M.cached_counts finds them.
function M.keep_counts(kernel, cfg, blocks_per_sm, cache, functional, counts)
  if cache then
    cache[counts_key(kernel, cfg, blocks_per_sm)] = counts
    if functional then
      cache[counts_key(kernel, cfg, blocks_per_sm, functional.params.l1_bytes)] = counts
    end
  end
end

-- The counts of a built kernel on a configuration whose machine `m` holds
-- `blocks_per_sm` of its blocks (> 0): through `cache` (see M.kernel),
-- from `functional` (see M.kernel) or a replay of its own.  Returns the
-- counts and, when it counted now, core.bounds_kernel's report; or nil,
-- message.  GPUMech's floor reads them this way, with what it knows.
function M.counts(kernel, cfg, m, blocks_per_sm, cache, functional, shared_bytes)
  local counts, checked = find_counts(kernel, cfg, m, blocks_per_sm, cache, functional, shared_bytes)
  if counts then
    return counts
  end
  local r, err = core.bounds_kernel(kernel, m, blocks_per_sm, checked)
  if not r then
    return nil, err
  end
  M.keep_counts(kernel, cfg, blocks_per_sm, cache, checked, r.counts)
  return r.counts, r
end

-- Every bound of a built kernel on a configuration (memory traffic from
-- memsim's functional mode).  Returns the report or nil, message; a kernel
-- that does not fit on an SM is an error.  `cache` (optional, any table the
-- caller keeps per kernel) keeps the kernel's counts across configurations
-- that differ only in what the counts do not read (MSHRs, DRAM bandwidth,
-- schedulers, issue width, launch cost).  `functional` (optional) is
-- memsim.functional's result for this kernel and configuration, when the
-- caller has replayed already (GPUMech): its totals are used instead of a
-- second replay, with the same counts.
function M.kernel(kernel, cfg, cache, functional)
  local m, blocks = M.machine(cfg, kernel)
  if blocks == 0 then
    local _, limit = occupancy.for_kernel(cfg, kernel)
    return nil, ("bounds: kernel '%s' does not fit on one SM of '%s' (limit: %s)")
      :format(kernel:info().kernel, cfg._name or "?", tostring(limit))
  end
  local counts, r = M.counts(kernel, cfg, m, blocks, cache, functional)
  if not counts then
    return nil, r
  end
  if not r then
    r = core.bounds_compute(counts, m, blocks)
    r.counts = counts
  end
  return finish(r, cfg, blocks)
end

-- Every bound from counts the caller computed (see core.bounds_compute's
-- fields in csrc/lua/l_bounds.c), for a kernel of `geometry` ({ threads =,
-- registers =, shared_bytes = }) on a configuration.
function M.compute(counts, cfg, geometry)
  local m, blocks = M.machine(cfg, geometry)
  if blocks == 0 then
    error(("gpush.bounds.compute: a block of %s threads does not fit on one SM of '%s'")
      :format(tostring(geometry.threads), cfg._name or "?"), 2)
  end
  local r = core.bounds_compute(counts, m, blocks)
  r.counts = counts
  return finish(r, cfg, blocks)
end

-- A short text: every non-zero bound, largest first, the binding one marked;
-- then the functional replay's l2, mshr and dram estimates and the expected
-- binding resource when it is not the hard one.
function M.format(r)
  local lines = { ("bounds: %s binds at %.0f cycles (+ %.0f launch = %.0f)"):format(r.binds, r.bound,
    r.launch, r.total) }
  for _, b in ipairs(r.ranked) do
    if b.cycles > 0 then
      lines[#lines + 1] = ("  %s %-8s %14.0f  %s"):format(b.name == r.binds and "*" or " ", b.name, b.cycles,
        M.DESCRIPTIONS[b.name])
    end
  end
  lines[#lines + 1] = ("  estimates (functional replay, merges counted, not bounds): l2 %.0f, mshr %.0f, dram %.0f")
    :format(r.estimates.l2, r.estimates.mshr, r.estimates.dram)
  if r.expect ~= r.binds then
    lines[#lines + 1] = ("  expected binding resource: %s at %.0f cycles"):format(r.expect, r.expect_cycles)
  end
  return table.concat(lines, "\n")
end

return M

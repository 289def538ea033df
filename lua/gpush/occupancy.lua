-- gpush.occupancy: how many thread blocks of a kernel an SM holds at once.
--
--   local n, limit = occupancy.blocks_per_sm(cfg, { threads = 256, registers = 32, shared_bytes = 0 })
--
-- The four limits of the CUDA occupancy calculator, in whole blocks: resident
-- warps (sm.max_warps), resident blocks (sm.max_blocks), registers (per warp,
-- rounded up to sm.register_alloc_unit; compute capability 1.x allocates per
-- block) and shared memory (per block, rounded up to sm.shared_alloc_bytes).
-- Returns the block count, the name of the binding limit, and the per-limit
-- counts; 0 blocks means the kernel cannot run on this configuration.
local M = {}

local function round_up(x, unit)
  return unit > 0 and math.ceil(x / unit) * unit or x
end

function M.blocks_per_sm(cfg, kernel)
  local warp_size = cfg.sm.warp_size
  local warps = math.ceil(kernel.threads / warp_size)
  local limits = {
    warps = cfg.sm.max_warps // warps,
    blocks = cfg.sm.max_blocks,
  }
  if kernel.threads > cfg.sm.max_block_threads then
    limits.threads = 0
  end
  local regs = kernel.registers or 0
  if regs > 0 then
    local per_block
    if cfg.gpu.compute_capability < 2 then
      per_block = round_up(regs * warp_size * warps, cfg.sm.register_alloc_unit)
    else
      per_block = round_up(regs * warp_size, cfg.sm.register_alloc_unit) * warps
    end
    limits.registers = regs > cfg.sm.max_registers_per_thread and 0 or cfg.sm.registers // per_block
  end
  local shared = kernel.shared_bytes or 0
  if shared > 0 then
    limits.shared = math.floor(cfg.sm.shared_kb * 1024 / round_up(shared, cfg.sm.shared_alloc_bytes))
  end
  local best, why = math.huge, nil
  for _, name in ipairs { "threads", "warps", "blocks", "registers", "shared" } do
    local n = limits[name]
    if n and n < best then
      best, why = n, name
    end
  end
  return math.max(0, math.tointeger(best) or 0), why, limits
end

-- The geometry blocks_per_sm takes, from a kernel's kernel:info().
function M.geometry(info)
  return {
    threads = info.block[1] * info.block[2] * info.block[3],
    registers = info.registers_per_thread,
    shared_bytes = info.shared_bytes_per_block,
  }
end

-- The same for a gpush kernel (trace or synthetic), or for a geometry table
-- as blocks_per_sm takes it.
function M.for_kernel(cfg, kernel)
  if type(kernel) == "table" then
    return M.blocks_per_sm(cfg, kernel)
  end
  return M.blocks_per_sm(cfg, M.geometry(kernel:info()))
end

return M

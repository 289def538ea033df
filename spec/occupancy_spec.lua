-- gpush.occupancy, checked against the CUDA occupancy calculator by hand.
local occupancy = require "gpush.occupancy"
local config = require "gpush.config"

describe("gpush.occupancy", function()
  local kepler = config.load("gtx660ti") -- cc 3.0: 64 warps, 16 blocks, 64 K registers, 48 KB

  it("is limited by warps for a light kernel", function()
    -- 256 threads = 8 warps: 64 / 8 = 8 blocks; registers 32 x 32 = 1024 per warp
    -- x 8 = 8192 per block: 65536 / 8192 = 8 blocks too; warps come first
    local n, why = occupancy.blocks_per_sm(kepler, { threads = 256, registers = 32 })
    assert.are.equal(8, n)
    assert.are.equal("warps", why)
  end)

  it("halves with nearly twice the registers", function()
    -- 60 x 32 = 1920 -> 2048 per warp (256-register units) x 8 = 16384: 4 blocks
    local n, why = occupancy.blocks_per_sm(kepler, { threads = 256, registers = 60 })
    assert.are.equal(4, n)
    assert.are.equal("registers", why)
  end)

  it("rounds registers per warp up to the allocation unit", function()
    -- 33 x 32 = 1056 -> 1280 per warp; x 4 warps = 5120: 65536 / 5120 = 12 blocks
    local n, why = occupancy.blocks_per_sm(kepler, { threads = 128, registers = 33 })
    assert.are.equal(12, n)
    assert.are.equal("registers", why)
  end)

  it("is limited by shared memory and by the block count", function()
    -- 20000 B -> 20224 B (256 B units): 49152 / 20224 = 2 blocks
    local n, why = occupancy.blocks_per_sm(kepler, { threads = 64, registers = 16, shared_bytes = 20000 })
    assert.are.equal(2, n)
    assert.are.equal("shared", why)
    n, why = occupancy.blocks_per_sm(kepler, { threads = 32, registers = 16 })
    assert.are.equal(16, n)
    assert.are.equal("blocks", why)
  end)

  it("says 0 when a block cannot fit at all", function()
    assert.are.equal(0, (occupancy.blocks_per_sm(kepler, { threads = 256, registers = 64 }))) -- cc 3.0: 63 at most
    local n, why = occupancy.blocks_per_sm(kepler, { threads = 2048, registers = 16 })
    assert.are.equal(0, n)
    assert.are.equal("threads", why)
    n, why = occupancy.blocks_per_sm(config.load("gtx480"), { threads = 64, registers = 100 })
    assert.are.equal(0, n)
    assert.are.equal("registers", why) -- cc 2.0 allows 63 registers per thread
  end)

  it("reads a kernel's geometry", function()
    local w = require "gpush.workloads"
    local k = assert(w.kernel(w.get("tiled_barrier")))
    -- 256 threads, 56 registers, 16 KB shared on Kepler: warps allow 8,
    -- registers 4 (14336 per block), shared 3
    local n, why = occupancy.for_kernel(kepler, k)
    assert.are.equal(3, n)
    assert.are.equal("shared", why)
  end)
end)

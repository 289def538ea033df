-- gpush.ml.findings: each of Wu et al.'s qualitative findings decided by its
-- stated test on made-up results whose outcome is known by construction:
-- one that holds and one that does not, per finding.
local findings = require "gpush.ml.findings"

-- A sweep over ks on one base whose per-K errors come from the tables given
-- (validation performance, validation power, training network, training
-- k-means oracle) and whose histograms are `hist(k)`.
local function sweep(ks, t, opts)
  opts = opts or {}
  local runs = {}
  for i, k in ipairs(ks) do
    local h = opts.hist and opts.hist(k) or { 50, 20, 10, 5, 3, 2, 1, 1, 0, 0, 0 }
    runs[i] = { bases = { {
      time = { mean = t.time[i], train_mean = t.train[i], train_oracle_mean = t.oracle[i], histogram = h },
      power = { mean = t.power[i], histogram = h },
    } } }
  end
  return { ks = ks, runs = runs, bases = { { cus = 8, core_mhz = 500, mem_mhz = 775 } } }
end

-- Every base of a 2 x 3 x 2 grid with the error error(config).
local function main(error_of, power_of)
  local ds = { grid = { cus = { 4, 8 }, core_mhz = { 300, 500, 1000 }, mem_mhz = { 475, 1375 } } }
  local bases = {}
  for _, c in ipairs(ds.grid.cus) do
    for _, e in ipairs(ds.grid.core_mhz) do
      for _, m in ipairs(ds.grid.mem_mhz) do
        local config = { cus = c, core_mhz = e, mem_mhz = m }
        bases[#bases + 1] = { config = config, time = { mean = error_of(config) },
          power = { mean = power_of and power_of(config) or 0.5 * error_of(config) } }
      end
    end
  end
  local sum, psum = 0, 0
  for _, b in ipairs(bases) do
    sum, psum = sum + b.time.mean, psum + b.power.mean
  end
  return ds, { k = 12, classifier = "neighbours", bases = bases, mean = { time = sum / #bases, power = psum / #bases } }
end

local function by_claim(list, text)
  for _, f in ipairs(list) do
    if f.claim:find(text, 1, true) then
      return f
    end
  end
end

local KS = { 2, 6, 8, 12, 16, 20 }
local GOOD = { time = { 0.30, 0.20, 0.15, 0.12, 0.121, 0.119 }, power = { 0.20, 0.10, 0.08, 0.079, 0.078, 0.078 },
  train = { 0.25, 0.15, 0.10, 0.10, 0.099, 0.101 }, oracle = { 0.25, 0.15, 0.09, 0.07, 0.05, 0.04 } }

describe("gpush.ml.findings", function()
  it("decides each finding on results built to satisfy it", function()
    local ds, m = main(function(c)
      -- the memory-bound corner (8 CUs, 1000 MHz, 475 MHz) and the compute-bound one (4, 300, 1375)
      -- worst; 500 MHz the best engine clock
      if c.cus == 8 and c.core_mhz == 1000 and c.mem_mhz == 475 then
        return 0.30
      elseif c.cus == 4 and c.core_mhz == 300 and c.mem_mhz == 1375 then
        return 0.25
      end
      return c.core_mhz == 500 and 0.05 or 0.10
    end)
    local list = findings.all(ds, m, sweep(KS, GOOD, { hist = function(k)
      return { 40 + k, 20, 10 - k / 4, 5, 3, 2, 1, 1, 0, 0, 3 }
    end }))
    assert.are.equal(7, #list)
    for _, f in ipairs(list) do
      assert.is_true(f.holds, f.claim .. ": " .. f.evidence)
      assert.is_string(f.test)
    end
  end)

  it("says 'does not hold' when the results contradict each finding", function()
    local ds, m = main(function(c)
      return c.core_mhz == 1000 and 0.05 or 0.10 -- the fastest clock best, the corners average
    end, function() return 0.2 end)
    local bad = { time = { 0.30, 0.20, 0.15, 0.12, 0.09, 0.06 }, power = { 0.20, 0.19, 0.18, 0.10, 0.09, 0.08 },
      train = { 0.25, 0.15, 0.09, 0.07, 0.05, 0.04 }, oracle = { 0.25, 0.15, 0.09, 0.07, 0.06, 0.061 } }
    local list = findings.all(ds, m, sweep(KS, bad, { hist = function(k)
      return { 40 - k, 20, 25, 5, 3, 2, 1, 1, 0, 0, 3 } -- rises at the third bin, the first bin shrinks
    end }))
    for _, text in ipairs { "imbalanced", "middle of the range", "falls as K grows", "histogram decays",
      "k-means oracle", "power needs few clusters", "power errs less" } do
      local f = assert(by_claim(list, text), text)
      assert.is_false(f.holds, text .. ": " .. f.evidence)
    end
    -- the evidence quotes the numbers the test read
    assert.matches("K=2 30.0 %", by_claim(list, "falls as K grows").evidence, 1, true)
  end)

  it("leaves undecided what the results cannot decide", function()
    local ds, m = main(function() return 0.1 end)
    ds.grid.core_mhz = { 300, 1000 } -- no middle clock
    local list = findings.all(ds, m, sweep({ 2, 6, 12 }, { time = { 0.3, 0.2, 0.1 }, power = { 0.2, 0.1, 0.1 },
      train = { 0.2, 0.1, 0.1 }, oracle = { 0.2, 0.1, 0.05 } }))
    assert.is_nil(by_claim(list, "middle of the range"))
    assert.is_nil(by_claim(list, "falls as K grows")) -- nothing beyond K = 12
    assert.is_nil(by_claim(list, "k-means oracle")) -- no K = 8
  end)
end)

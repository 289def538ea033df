-- The multicore model: Hill and Marty's formulas, Table 2.3, Eq. 2.1, the
-- area and power constraints and the dark fraction.
local topology = require "gpush.models.mech.topology"

describe("gpush.models.mech.topology: Hill and Marty", function()
  it("reproduces the paper's figures on the speedup", function()
    -- n = 16, f = 0.5, one 16-BCE core: 1 / (0.5 / 4 + 0.5 * 16 / (4 * 16)) = 4
    assert.is_near(4, topology.hill_marty("symmetric", 0.5, 16, 16), 1e-12)
    -- n = 16, f = 0.975, sixteen 1-BCE cores: 1 / (0.025 + 0.975 / 16) = 11.6
    assert.is_near(11.6, topology.hill_marty("symmetric", 0.975, 16, 1), 0.05)
    -- "99 % parallel limits 256 cores to speedup 72"
    assert.is_near(72.1, topology.hill_marty("symmetric", 0.99, 256, 1), 0.05)
    -- n = 256, f = 0.975: symmetric best 51.2, asymmetric about 125
    assert.is_near(51.2, topology.hill_marty_best("symmetric", 0.975, 256).speedup, 0.05)
    assert.is_near(125, topology.hill_marty_best("asymmetric", 0.975, 256).speedup, 1)
  end)

  it("has a flat symmetric optimum: r = 6.6 and r = 7.1 both give 51.2", function()
    assert.is_near(51.2, topology.hill_marty("symmetric", 0.975, 256, 6.6), 0.05)
    assert.is_near(51.2, topology.hill_marty("symmetric", 0.975, 256, 7.1), 0.05)
  end)

  it("searches every design of whole cores: the best is at least each of them", function()
    for _, name in ipairs(topology.HILL_MARTY) do
      for _, case in ipairs { { 0.975, 256 }, { 0.9, 64 }, { 0.5, 16 }, { 0.999, 1024 }, { 0.99, 100 } } do
        local f, n = case[1], case[2]
        local best = topology.hill_marty_best(name, f, n)
        assert.is_true(best.best_r >= 1 and best.best_r <= n)
        assert.is_near(topology.hill_marty(name, f, n, best.best_r), best.speedup, 1e-12)
        -- symmetric: k cores of n / k BCEs; asymmetric and dynamic: a big core of k whole BCEs
        for k = 1, n do
          local r = name == "symmetric" and n / k or k
          assert.is_true(best.speedup >= topology.hill_marty(name, f, n, r) - 1e-12, name .. " k=" .. k)
        end
        -- the cores are whole and exact: symmetric n / r of them
        if name == "symmetric" then
          assert.is_near(n / best.best_r, best.cores, 1e-9)
        end
      end
    end
    -- the floating floor that printed 38 cores for r = 256 / 39 (and 8 for 1e7 / 9) is gone
    assert.are.equal(39, topology.hill_marty_cores("symmetric", 256, 256 / 39))
    assert.are.equal(9, topology.hill_marty_cores("symmetric", 1e7, 1e7 / 9))
    local big = topology.hill_marty_best("symmetric", 0.9, 1e7)
    assert.are.equal(9, big.cores)
    assert.is_near(1e7 / 9, big.best_r, 1e-6)
    -- n = 256, f = 0.975: the symmetric optimum lies between powers of two (r near 6.6)
    local sym = topology.hill_marty_best("symmetric", 0.975, 256)
    assert.is_true(sym.best_r > 6 and sym.best_r < 7.2, tostring(sym.best_r))
    assert.is_true(sym.speedup > topology.hill_marty("symmetric", 0.975, 256, 8))
    -- the dynamic chip's serial core takes the whole chip when perf grows with r
    local dyn = topology.hill_marty_best("dynamic", 0.975, 256)
    assert.is_near(256, dyn.best_r, 1e-6)
    assert.is_near(1 / (0.025 / 16 + 0.975 / 256), dyn.speedup, 1e-9)
  end)

  it("counts the cores of a Hill-Marty design", function()
    assert.are.equal(36, topology.hill_marty_cores("symmetric", 256, 7.1))
    assert.are.equal(1 + 190, topology.hill_marty_cores("asymmetric", 256, 66))
    assert.are.equal(256, topology.hill_marty_cores("dynamic", 256, 66))
  end)

  it("rejects fused and nonsense inputs", function()
    assert.has_error(function() topology.hill_marty("fused", 0.9, 16, 4) end,
      "topology.hill_marty: no Hill-Marty formula for 'fused' (symmetric, asymmetric or dynamic)")
    assert.has_error(function() topology.hill_marty_best("symmetric", 1.5, 16) end,
      "topology.hill_marty_best: f must be in [0, 1], got 1.5")
    assert.has_error(function() topology.hill_marty_best("symmetric", 0.5, 0.5) end,
      "topology.hill_marty_best: n must be a whole number of BCEs >= 1, got 0.5")
    assert.has_error(function() topology.hill_marty_best("symmetric", 0.5, 1.5) end,
      "topology.hill_marty_best: n must be a whole number of BCEs >= 1, got 1.5")
  end)
end)

describe("gpush.models.mech.topology: Table 2.3 and Eq. 2.1", function()
  local c = { n = 10, light = 2, light_serial = 1.5, heavy = 6, heavy_parallel = 5, bandwidth_serial = 100,
    bandwidth_parallel = 100 }

  it("computes P_1 and P_inf per topology", function()
    local p1, pinf = topology.performance("symmetric", c)
    assert.are.same({ 1.5, 20 }, { p1, pinf })
    p1, pinf = topology.performance("asymmetric", c)
    assert.are.same({ 6, 25 }, { p1, pinf }) -- heavy in parallel + 10 light
    p1, pinf = topology.performance("dynamic", c)
    assert.are.same({ 6, 20 }, { p1, pinf })
    p1, pinf = topology.performance("fused", c)
    assert.are.same({ 6, 20 }, { p1, pinf })
  end)

  it("takes the min with the bandwidth bound unless unbounded (custom models, L512)", function()
    local bounded = { n = 10, light = 2, heavy = 6, bandwidth_serial = 4, bandwidth_parallel = 15 }
    local p1, pinf = topology.performance("asymmetric", bounded)
    assert.are.same({ 4, 15 }, { p1, pinf })
    bounded.unbounded = true
    p1, pinf = topology.performance("asymmetric", bounded)
    assert.are.same({ 6, 26 }, { p1, pinf })
  end)

  it("gives Eq. 2.1's speedup against the baseline", function()
    -- S_1 = 2, S_inf = 8, f = 0.9: 1 / (0.1 / 2 + 0.9 / 8) = 6.1538...
    assert.is_near(1 / (0.05 + 0.1125), topology.speedup(0.9, 4, 80, 2, 10), 1e-12)
    assert.are.equal(1, topology.speedup(0.7, 3, 9, 3, 9))
    assert.are.equal(2, topology.speedup(0, 6, 1, 3, 9))
    assert.are.equal(3, topology.speedup(1, 1, 27, 3, 9))
    assert.has_error(function() topology.speedup(1.2, 1, 1, 1, 1) end,
      "topology.speedup: parallel fraction f must be in [0, 1], got 1.2")
  end)

  it("rejects an unknown topology naming the choices", function()
    assert.has_error(function() topology.performance("ring", c) end,
      "topology: unknown topology 'ring' (symmetric, asymmetric, dynamic or fused)")
  end)
end)

describe("gpush.models.mech.topology: constraints and dark silicon", function()
  local light, heavy = { area = 10, power = 5 }, { area = 30, power = 20 }

  it("counts the light cores each budget allows, by hand", function()
    local budget = { area = 100, power = 40 }
    assert.are.same({ 8, 10, 8 }, { topology.max_cores("symmetric", light, heavy, budget) })
    -- asymmetric: (100 - 30) / 10 = 7 by area, (40 - 20) / 5 = 4 by power
    assert.are.same({ 4, 7, 4 }, { topology.max_cores("asymmetric", light, heavy, budget) })
    -- dynamic: the heavy core is off in parallel phases: 7 by area, 8 by power
    assert.are.same({ 7, 7, 8 }, { topology.max_cores("dynamic", light, heavy, budget) })
    -- fused with 25 % overhead: 100 / 12.5 = 8 by area, 8 by power
    assert.are.same({ 8, 8, 8 }, { topology.max_cores("fused", light, heavy, { area = 100, power = 40,
      fused_overhead = 0.25 }) })
    -- a heavy core over the power budget fits in no heterogeneous chip
    assert.are.same({ 0, 0, 0 }, { topology.max_cores("dynamic", light, { area = 30, power = 50 }, budget) })
    -- a budget that is an exact multiple is not lost to rounding
    assert.are.equal(3, (topology.max_cores("symmetric", { area = 0.1, power = 0.1 }, nil, { area = 0.3, power = 1 })))
  end)

  it("requires the fused core to be built from the light cores", function()
    local budget = { area = 100, power = 100 }
    assert.is_false(topology.fits("fused", 2, light, heavy, budget)) -- 30 > 2 x 10
    assert.is_true(topology.fits("fused", 3, light, heavy, budget))
    assert.is_false(topology.fits("symmetric", 11, light, nil, budget))
  end)

  it("computes the dark fraction by hand", function()
    -- symmetric, power-limited: 8 cores of 10 mm^2 run out of 100 mm^2
    assert.is_near(0.2, topology.dark_fraction("symmetric", light, nil, { area = 100, power = 40 }), 1e-12)
    -- area-limited: nothing is dark
    assert.are.equal(0, topology.dark_fraction("symmetric", light, nil, { area = 100, power = 60 }))
    -- asymmetric: heavy (30) + 4 light (40) run
    assert.is_near(0.3, topology.dark_fraction("asymmetric", light, heavy, { area = 100, power = 40 }), 1e-12)
    -- dynamic: power lets 4 of 7 light cores run in parallel phases; the heavy core is off then
    assert.is_near(0.6, topology.dark_fraction("dynamic", light, heavy, { area = 100, power = 20 }), 1e-12)
    -- an asymmetric chip whose heavy core the power budget cannot run runs nothing (the heavy core is always
    -- on); a heavy core over the area budget is no design at all
    assert.are.equal(1, topology.dark_fraction("asymmetric", light, { area = 10, power = 50 },
      { area = 100, power = 15 }))
    assert.is_nil(topology.dark_fraction("dynamic", light, { area = 120, power = 1 }, { area = 100, power = 40 }))
  end)

  it("keeps the dark fraction in [0, 1] and never lets it fall as the power budget shrinks", function()
    local bad, checked = {}, 0
    local cores = {}
    for q = 2, 40, 2 do
      cores[#cores + 1] = { area = 7 + 0.015 * q * q, power = 0.4 * q + 0.0002 * q ^ 3 }
    end
    for _, name in ipairs(topology.NAMES) do
      for _, l in ipairs(cores) do
        for _, h in ipairs(cores) do
          local previous = -1
          for power = 200, 1, -3 do
            local d = topology.dark_fraction(name, l, h, { area = 111, power = power })
            -- every core here fits the area budget, so every design has a dark fraction
            if type(d) ~= "number" or d < 0 or d > 1 or d < previous - 1e-12 then
              bad[#bad + 1] = ("%s at %g W: %s after %g"):format(name, power, tostring(d), previous)
            end
            previous = d
            checked = checked + 1
          end
        end
      end
    end
    assert.are.same({}, bad)
    assert.are.equal(4 * 20 * 20 * 67, checked)
  end)
end)

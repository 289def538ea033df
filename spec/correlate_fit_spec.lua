-- gpush.correlate.fit: bounded Levenberg-Marquardt and its standard errors,
-- checked against closed forms computed by hand: ordinary least squares of
-- a straight line (estimates and standard errors), Rosenbrock's valley, a
-- bound that binds, and parameters the data cannot tell apart.
local fit = require "gpush.correlate.fit"

-- y = 2 + 0.5 x with fixed, non-symmetric deviations
local xs = { 1, 2, 3, 4, 5, 6 }
local dev = { 0.3, -0.2, -0.4, 0.1, 0.5, -0.3 }
local ys = {}
for i, x in ipairs(xs) do
  ys[i] = 2 + 0.5 * x + dev[i]
end

local function line_residuals(theta)
  local r = {}
  for i, x in ipairs(xs) do
    r[i] = theta[1] + theta[2] * x - ys[i]
  end
  return r
end

-- The textbook OLS solution of y = a + b x: b = Sxy / Sxx, a = ybar - b xbar,
-- s^2 = RSS / (n - 2), se(b) = sqrt(s^2 / Sxx), se(a) = sqrt(s^2 (1/n + xbar^2 / Sxx)).
local function ols()
  local n, sx, sy = #xs, 0, 0
  for i = 1, n do
    sx, sy = sx + xs[i], sy + ys[i]
  end
  local xbar, ybar = sx / n, sy / n
  local sxx, sxy = 0, 0
  for i = 1, n do
    sxx = sxx + (xs[i] - xbar) ^ 2
    sxy = sxy + (xs[i] - xbar) * (ys[i] - ybar)
  end
  local b = sxy / sxx
  local a = ybar - b * xbar
  local rss = 0
  for i = 1, n do
    rss = rss + (ys[i] - a - b * xs[i]) ^ 2
  end
  local s2 = rss / (n - 2)
  local corr = -xbar / math.sqrt(sxx / n + xbar ^ 2)
  return a, b, math.sqrt(s2 * (1 / n + xbar ^ 2 / sxx)), math.sqrt(s2 / sxx), rss, corr
end

describe("gpush.correlate.fit", function()
  it("solves and inverts small systems", function()
    local x = assert(fit.solve({ { 2, 1 }, { 1, 3 } }, { 3, 5 }))
    assert.is_near(0.8, x[1], 1e-12)
    assert.is_near(1.4, x[2], 1e-12)
    assert.is_nil(fit.solve({ { 1, 2 }, { 2, 4 } }, { 1, 2 }))
    local inv = assert(fit.inverse { { 4, 7 }, { 2, 6 } })
    assert.is_near(0.6, inv[1][1], 1e-12)
    assert.is_near(-0.7, inv[1][2], 1e-12)
    assert.is_near(-0.2, inv[2][1], 1e-12)
    assert.is_near(0.4, inv[2][2], 1e-12)
  end)

  it("gives a straight line's OLS estimates and standard errors", function()
    local a, b, se_a, se_b, rss, corr = ols()
    -- by hand: xbar 3.5, Sxx 17.5, Sxy = 0.5 x 17.5 + sum (x - 3.5) dev = 8.75 - 0.2 = 8.55
    assert.is_near(8.55 / 17.5, b, 1e-12)
    local r = assert(fit.least_squares(line_residuals, { 0, 0 }, { -100, -100 }, { 100, 100 }))
    assert.is_true(r.converged)
    assert.is_near(a, r.theta[1], 1e-7)
    assert.is_near(b, r.theta[2], 1e-7)
    assert.is_near(rss / 2, r.cost, 1e-10)
    assert.are.equal(4, r.dof)
    assert.is_near(se_a, r.stderr[1], 1e-6)
    assert.is_near(se_b, r.stderr[2], 1e-6)
    -- corr(a, b) = -xbar / sqrt(Sxx / n + xbar^2)
    assert.is_near(corr, r.correlation[1][2], 1e-6)
    assert.are.same({ false, false }, r.at_bound)
  end)

  it("walks Rosenbrock's curved valley to (1, 1)", function()
    local r = assert(fit.least_squares(function(t)
      return { 10 * (t[2] - t[1] ^ 2), 1 - t[1] }
    end, { -1.2, 1 }, { -5, -5 }, { 5, 5 }))
    assert.is_true(r.converged)
    assert.is_near(1, r.theta[1], 1e-6)
    assert.is_near(1, r.theta[2], 1e-6)
    assert.is_true(r.cost < 1e-12)
    assert.is_true(r.iterations < 60)
  end)

  it("stops at a bound that binds, with no standard error there", function()
    local _, b = ols()
    -- cap the slope below its optimum: the intercept refits to ybar - 0.3 xbar
    local r = assert(fit.least_squares(line_residuals, { 0, 0 }, { -100, -100 }, { 100, 0.3 }))
    assert.are.equal(0.3, r.theta[2])
    assert.is_true(b > 0.3)
    local ybar = 0
    for i = 1, #ys do
      ybar = ybar + ys[i] / #ys
    end
    assert.is_near(ybar - 0.3 * 3.5, r.theta[1], 1e-7)
    assert.are.same({ false, true }, r.at_bound)
    assert.is_nil(r.stderr[2])
    -- the free intercept's error is that of a mean: sqrt(RSS / (n - 1) / n)
    local rss = 0
    for i, x in ipairs(xs) do
      rss = rss + (ys[i] - r.theta[1] - 0.3 * x) ^ 2
    end
    assert.are.equal(5, r.dof)
    assert.is_near(math.sqrt(rss / 5 / 6), r.stderr[1], 1e-6)
  end)

  it("is deterministic bit for bit", function()
    local a = assert(fit.least_squares(line_residuals, { 1, 1 }, { -10, -10 }, { 10, 10 }))
    local b = assert(fit.least_squares(line_residuals, { 1, 1 }, { -10, -10 }, { 10, 10 }))
    assert.are.equal(a.theta[1], b.theta[1])
    assert.are.equal(a.theta[2], b.theta[2])
    assert.are.equal(a.stderr[1], b.stderr[1])
    assert.are.equal(a.evaluations, b.evaluations)
  end)

  it("says when the data cannot fit or separate the parameters", function()
    -- a parameter no residual depends on
    local r, err = fit.least_squares(function(t) return { t[1] - 1, t[1] + 1 } end, { 0, 0 }, { -1, -1 }, { 1, 1 },
      { names = { "a", "b" } })
    assert.is_nil(r)
    assert.matches("parameter 2 (b) changes no residual", err, 1, true)
    -- two parameters that enter only as a sum: fitted, but not told apart
    r = assert(fit.least_squares(function(t)
      return { t[1] + t[2] - 1, t[1] + t[2] - 3, t[1] + t[2] - 2 }
    end, { 0, 0 }, { -10, -10 }, { 10, 10 }))
    assert.is_near(2, r.theta[1] + r.theta[2], 1e-6)
    assert.is_nil(r.stderr[1])
    assert.matches("cannot tell the parameters apart", r.problem, 1, true)
    -- as many residuals as parameters: an exact fit, no spread to estimate
    r = assert(fit.least_squares(function(t) return { t[1] - 0.5 } end, { 0 }, { -1 }, { 1 }))
    assert.is_near(0.5, r.theta[1], 1e-9)
    assert.is_nil(r.stderr[1])
    assert.matches("1 residuals for 1 free parameters", r.problem, 1, true)
    -- a residual function that fails
    r, err = fit.least_squares(function() return nil, "model sim-gto failed" end, { 0 }, { -1 }, { 1 })
    assert.is_nil(r)
    assert.are.equal("model sim-gto failed", err)
  end)
end)

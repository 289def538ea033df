-- gpush.correlate.fit: bounded nonlinear least squares with standard
-- errors, for fitting machine parameters to measured cycles
-- (docs/correlate.md, "How the fit works").
--
--   local r = assert(fit.least_squares(residuals, start, lower, upper, opts))
--   r.theta, r.stderr, r.at_bound, r.cost, r.iterations, r.reason
--
-- residuals(theta) returns the list of residuals r_1..r_n (the same n
-- every call) or nil, message; the fit minimises cost = 1/2 sum r_i^2 over
-- theta within [lower, upper] (each bound finite).
--
-- The method is Levenberg-Marquardt (Marquardt 1963, with Nielsen's update
-- of the damping, as in Madsen, Nielsen and Tingleff, "Methods for
-- non-linear least squares problems", 2004, Algorithm 3.16) made to respect
-- the bounds by projection: each step solves
--   (J_F' J_F + lambda diag(J_F' J_F)) delta_F = -J_F' r
-- over the free parameters F (those not held at a bound by a gradient that
-- points out of the box), and the new point is clamped into the box.  The
-- diagonal scaling makes the steps independent of each parameter's units
-- (cycles next to GB/s).  The Jacobian is taken by forward differences
-- with a step of opts.step (default 1e-3) times max(|theta_j|, 1), grown
-- tenfold up to three times when the residuals do not move at all.
--
-- At the optimum the standard errors come from the Jacobian J (central
-- differences) of the parameters not at a bound: covariance = s^2 (J'J)^-1
-- with s^2 = sum r_i^2 / (n - p), the classical estimate that assumes the
-- residuals are independent, of equal variance and the model linear in the
-- parameters near the optimum.  A parameter at a bound has no standard
-- error (nil); so has every parameter when n <= p or J'J is singular (the
-- parameters cannot be told apart from these residuals).  Everything is
-- deterministic: no random start, no randomised step.
local M = {}

-- The cost 1/2 sum r_i^2.
local function half_sum_squares(r)
  local s = 0
  for i = 1, #r do
    s = s + r[i] * r[i]
  end
  return s / 2
end

local function clamp(v, lo, hi)
  return math.max(lo, math.min(hi, v))
end

-- Solves the p x p system a x = b (a given as rows) by Gaussian elimination
-- with partial pivoting; returns x, or nil when a pivot is below `tiny`
-- times the largest diagonal entry (singular for our purposes).
function M.solve(a, b, tiny)
  local n = #b
  local m = {}
  local scale = 0
  for i = 1, n do
    m[i] = {}
    for j = 1, n do
      m[i][j] = a[i][j]
    end
    m[i][n + 1] = b[i]
    scale = math.max(scale, math.abs(a[i][i]))
  end
  local limit = (tiny or 1e-14) * scale
  for c = 1, n do
    local best = c
    for r = c + 1, n do
      if math.abs(m[r][c]) > math.abs(m[best][c]) then
        best = r
      end
    end
    if not (math.abs(m[best][c]) > limit) then
      return nil
    end
    m[c], m[best] = m[best], m[c]
    for r = c + 1, n do
      local f = m[r][c] / m[c][c]
      if f ~= 0 then
        for j = c, n + 1 do
          m[r][j] = m[r][j] - f * m[c][j]
        end
      end
    end
  end
  local x = {}
  for i = n, 1, -1 do
    local s = m[i][n + 1]
    for j = i + 1, n do
      s = s - m[i][j] * x[j]
    end
    x[i] = s / m[i][i]
  end
  return x
end

-- The inverse of a p x p matrix (rows), or nil when singular.
function M.inverse(a)
  local n = #a
  local inv = {}
  for i = 1, n do
    inv[i] = {}
  end
  for j = 1, n do
    local e = {}
    for i = 1, n do
      e[i] = i == j and 1 or 0
    end
    local col = M.solve(a, e)
    if not col then
      return nil
    end
    for i = 1, n do
      inv[i][j] = col[i]
    end
  end
  return inv
end

-- J' J and J' r over the columns `cols` (a list of parameter indices);
-- J is a list of columns, each a list of n derivatives.
local function normal_equations(J, r, cols)
  local a, g = {}, {}
  for x, i in ipairs(cols) do
    a[x] = {}
    local s = 0
    for k = 1, #r do
      s = s + J[i][k] * r[k]
    end
    g[x] = s
    for y, j in ipairs(cols) do
      local t = 0
      for k = 1, #r do
        t = t + J[i][k] * J[j][k]
      end
      a[x][y] = t
    end
  end
  return a, g
end

-- The state of one fit: the residual function with its call count and
-- checks, the bounds and options.
local Fit = {}
Fit.__index = Fit

function Fit:evaluate(theta)
  self.evaluations = self.evaluations + 1
  local r, err = self.residuals(theta)
  if not r then
    error({ fit_error = err }, 0)
  end
  if self.n and #r ~= self.n then
    error({ fit_error = ("the residual function returned %d residuals, then %d"):format(self.n, #r) }, 0)
  end
  for i = 1, #r do
    if type(r[i]) ~= "number" or r[i] ~= r[i] or r[i] == math.huge or r[i] == -math.huge then
      error({ fit_error = ("residual %d is %s at this point: expected a finite number"):format(i, tostring(r[i])) },
        0)
    end
  end
  self.n = #r
  return r
end

-- theta with parameter j set to v.
local function moved(theta, j, v)
  local t = { table.unpack(theta) }
  t[j] = v
  return t
end

-- Column j of the Jacobian at theta (residuals r there): forward (or, at
-- the upper bound, backward) differences; `central` takes central ones
-- where both sides are inside the box.  The step grows tenfold up to three
-- times while the residuals do not move.  Returns the column, or nil when
-- the parameter changes no residual even at the largest step.
function Fit:column(theta, r, j, central)
  local lo, hi = self.lower[j], self.upper[j]
  local h = self.step * math.max(math.abs(theta[j]), 1)
  for _ = 1, 4 do
    local col, moves = {}, false
    if central and theta[j] - h >= lo and theta[j] + h <= hi then
      local rp = self:evaluate(moved(theta, j, theta[j] + h))
      local rm = self:evaluate(moved(theta, j, theta[j] - h))
      for k = 1, #r do
        col[k] = (rp[k] - rm[k]) / (2 * h)
        moves = moves or rp[k] ~= rm[k]
      end
    else
      local signed = theta[j] + h <= hi and h or -h
      if theta[j] + signed < lo then
        signed = lo - theta[j] -- a box narrower than the step: the whole width
      end
      local rp = self:evaluate(moved(theta, j, theta[j] + signed))
      for k = 1, #r do
        col[k] = (rp[k] - r[k]) / signed
        moves = moves or rp[k] ~= r[k]
      end
    end
    if moves then
      return col
    end
    h = h * 10
  end
  return nil
end

function Fit:jacobian(theta, r, central)
  local J = {}
  for j = 1, #theta do
    J[j] = self:column(theta, r, j, central)
    if not J[j] then
      error({ fit_error = ("parameter %d (%s) changes no residual, even moved by %s: it cannot be fitted from"
        .. " these data"):format(j, self.names[j] or "?", tostring(self.step * 1000 * math.max(math.abs(theta[j]), 1))),
        no_effect = j }, 0)
    end
  end
  return J
end

-- The free parameters at theta for gradient g: not held at a bound by a
-- gradient pointing out of the box.
function Fit:free(theta, g)
  local cols = {}
  for j = 1, #theta do
    local held = (theta[j] <= self.lower[j] and g[j] > 0) or (theta[j] >= self.upper[j] and g[j] < 0)
    if not held then
      cols[#cols + 1] = j
    end
  end
  return cols
end

-- One Levenberg-Marquardt iteration from (theta, r, cost): returns the new
-- point (accepted or the same) and nil, or a reason to stop.
function Fit:iterate(theta, r, cost)
  local J = self:jacobian(theta, r, false)
  local all = {}
  for j = 1, #theta do
    all[j] = j
  end
  local _, g_all = normal_equations(J, r, all)
  local cols = self:free(theta, g_all)
  if #cols == 0 then
    return theta, r, cost, "every parameter is held at a bound"
  end
  local a, g = normal_equations(J, r, cols)
  local gmax = 0
  for x = 1, #cols do
    gmax = math.max(gmax, math.abs(g[x]) / math.sqrt(math.max(a[x][x], 1e-300)))
  end
  if gmax <= self.gtol * math.max(math.sqrt(2 * cost), 1e-300) then
    return theta, r, cost, "the gradient vanishes"
  end
  while true do
    local damped = {}
    for x = 1, #cols do
      damped[x] = { table.unpack(a[x]) }
      damped[x][x] = a[x][x] * (1 + self.lambda)
    end
    local neg = {}
    for x = 1, #cols do
      neg[x] = -g[x]
    end
    local delta = M.solve(damped, neg)
    if not delta then
      return theta, r, cost, "the normal equations are singular"
    end
    local trial, small = { table.unpack(theta) }, true
    for x, j in ipairs(cols) do
      trial[j] = clamp(theta[j] + delta[x], self.lower[j], self.upper[j])
      if math.abs(trial[j] - theta[j]) > self.xtol * (math.abs(theta[j]) + self.xtol) then
        small = false
      end
    end
    if small then
      return theta, r, cost, "the step is below the tolerance"
    end
    -- the reduction the linear model promises for the (clamped) step
    local promised = 0
    for x, j in ipairs(cols) do
      local d = trial[j] - theta[j]
      local ad = 0
      for y, k in ipairs(cols) do
        ad = ad + a[x][y] * (trial[k] - theta[k])
      end
      promised = promised - (g[x] * d + 0.5 * d * ad)
    end
    local r_trial = self:evaluate(trial)
    local cost_trial = half_sum_squares(r_trial)
    if cost_trial < cost then
      local rho = promised > 0 and (cost - cost_trial) / promised or 1
      self.lambda = self.lambda * math.max(1 / 3, 1 - (2 * rho - 1) ^ 3)
      self.nu = 2
      local reason = (cost - cost_trial) <= self.ftol * cost and "the cost no longer falls" or nil
      return trial, r_trial, cost_trial, reason
    end
    self.lambda = self.lambda * self.nu
    self.nu = self.nu * 2
    if self.lambda > 1e16 then
      return theta, r, cost, "no step lowers the cost"
    end
  end
end

-- Standard errors, covariance and correlations at the optimum, over the
-- parameters not at a bound.
function Fit:uncertainty(theta, r, cost)
  local out = { stderr = {}, at_bound = {}, correlation = {} }
  local J = self:jacobian(theta, r, true)
  local cols = {}
  for j = 1, #theta do
    out.at_bound[j] = theta[j] <= self.lower[j] or theta[j] >= self.upper[j]
    if not out.at_bound[j] then
      cols[#cols + 1] = j
    end
  end
  out.dof = #r - #cols
  if #cols == 0 then
    return out
  end
  if out.dof <= 0 then
    out.problem = ("%d residuals for %d free parameters: no standard errors"):format(#r, #cols)
    return out
  end
  local a = normal_equations(J, r, cols)
  local inv = M.inverse(a)
  if not inv then
    out.problem = "J'J is singular at the optimum: these data cannot tell the parameters apart"
    return out
  end
  out.s2 = 2 * cost / out.dof
  for x, j in ipairs(cols) do
    out.stderr[j] = math.sqrt(math.max(0, out.s2 * inv[x][x]))
    out.correlation[j] = {}
    for y, k in ipairs(cols) do
      local d = math.sqrt(inv[x][x] * inv[y][y])
      out.correlation[j][k] = d > 0 and inv[x][y] / d or 0
    end
  end
  return out
end

-- Fits theta within [lower, upper] from `start`.  opts: names (for
-- messages), step (1e-3), max_iterations (100), ftol (1e-10: stop when an
-- accepted step lowers the cost by less than this share), xtol (1e-9:
-- relative step), gtol (1e-10), on_iteration(info) (info: iteration,
-- theta, cost, lambda).  Returns a table: theta, cost (1/2 sum r^2 at the
-- optimum), start_cost, residuals, iterations, evaluations, reason (why it
-- stopped), converged (false only when the iterations ran out), stderr
-- (per parameter, nil at a bound or when unavailable), at_bound,
-- correlation (between free parameters), dof, s2, problem (why standard
-- errors are missing); or nil and a message.
function M.least_squares(residuals, start, lower, upper, opts)
  opts = opts or {}
  if type(residuals) ~= "function" or type(start) ~= "table" or #start == 0 then
    error("gpush.correlate.fit.least_squares: expected (residuals function, start list, lower, upper, opts)", 2)
  end
  for j = 1, #start do
    if not (lower[j] <= upper[j]) or lower[j] == -math.huge or upper[j] == math.huge then
      error(("gpush.correlate.fit.least_squares: parameter %d needs finite bounds lower <= upper"):format(j), 2)
    end
  end
  local self = setmetatable({ residuals = residuals, lower = lower, upper = upper, names = opts.names or {},
    step = opts.step or 1e-3, ftol = opts.ftol or 1e-10, xtol = opts.xtol or 1e-9, gtol = opts.gtol or 1e-10,
    lambda = 1e-3, nu = 2, evaluations = 0 }, Fit)
  local ok, result = pcall(function()
    local theta = {}
    for j = 1, #start do
      theta[j] = clamp(start[j], lower[j], upper[j])
    end
    local r = self:evaluate(theta)
    local cost = half_sum_squares(r)
    local start_cost, reason, iterations = cost, nil, 0
    for it = 1, opts.max_iterations or 100 do
      iterations = it
      theta, r, cost, reason = self:iterate(theta, r, cost)
      if opts.on_iteration then
        opts.on_iteration { iteration = it, theta = theta, cost = cost, lambda = self.lambda }
      end
      if reason then
        break
      end
    end
    local u = self:uncertainty(theta, r, cost)
    return { theta = theta, cost = cost, start_cost = start_cost, residuals = r, iterations = iterations,
      evaluations = self.evaluations, reason = reason or "the iterations ran out", converged = reason ~= nil,
      stderr = u.stderr, at_bound = u.at_bound, correlation = u.correlation, dof = u.dof, s2 = u.s2,
      problem = u.problem }
  end)
  if ok then
    return result
  end
  if type(result) == "table" and result.fit_error then
    return nil, result.fit_error
  end
  error(result, 0)
end

return M

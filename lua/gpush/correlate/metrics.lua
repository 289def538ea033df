-- gpush.correlate.metrics: how far predictions are from measurements.
--
--   metrics.error(measured, predicted)     --> (predicted - measured) / measured
--   metrics.summary({ {measured, predicted}, ... })
--     --> { n, mean_abs_error, max_abs_error, mean_error, rmse, correlation }
--
-- Errors are fractions of the measured value (0.1 is 10 % too slow a
-- prediction, -0.1 10 % too fast); rmse is in the measured unit (cycles);
-- correlation is Pearson's r between measured and predicted values, nil
-- (JSON null) with fewer than two pairs or when either side does not vary.
local M = {}

function M.error(measured, predicted)
  return (predicted - measured) / measured
end

-- Pearson's product-moment correlation of two equal-length lists, or nil.
function M.pearson(xs, ys)
  local n = #xs
  if n < 2 then
    return nil
  end
  local mx, my = 0, 0
  for i = 1, n do
    mx, my = mx + xs[i] / n, my + ys[i] / n
  end
  local sxy, sxx, syy = 0, 0, 0
  for i = 1, n do
    local dx, dy = xs[i] - mx, ys[i] - my
    sxy, sxx, syy = sxy + dx * dy, sxx + dx * dx, syy + dy * dy
  end
  if sxx <= 0 or syy <= 0 then
    return nil
  end
  return sxy / math.sqrt(sxx * syy)
end

-- The summary of a list of {measured, predicted} pairs (an empty list: n = 0
-- and every other field nil).
function M.summary(pairs_list)
  local n = #pairs_list
  local out = { n = n }
  if n == 0 then
    return out
  end
  local abs_sum, signed_sum, worst, sq = 0, 0, 0, 0
  local xs, ys = {}, {}
  for i, p in ipairs(pairs_list) do
    local e = M.error(p[1], p[2])
    abs_sum, signed_sum = abs_sum + math.abs(e), signed_sum + e
    worst = math.max(worst, math.abs(e))
    sq = sq + (p[2] - p[1]) ^ 2
    xs[i], ys[i] = p[1], p[2]
  end
  out.mean_abs_error = abs_sum / n
  out.max_abs_error = worst
  out.mean_error = signed_sum / n
  out.rmse = math.sqrt(sq / n)
  out.correlation = M.pearson(xs, ys)
  return out
end

-- The fields of a summary in the order tables show them.
M.FIELDS = { "n", "mean_abs_error", "max_abs_error", "mean_error", "rmse", "correlation" }

return M

"""Student's t distribution function, for one-sided t-tests without SciPy.

``t_cdf(t, df)`` = P(T <= t) for T ~ t(df), through the regularised incomplete beta function:
for t < 0, P(T <= t) = I_x(df / 2, 1 / 2) / 2 with x = df / (df + t^2) (Abramowitz & Stegun 1964,
26.7.1 and 26.5.27); I_x(a, b) by its continued fraction, evaluated with the modified Lentz method
(Press et al., *Numerical Recipes*, 3rd ed., section 6.4), which converges fast for x < (a + 1) /
(a + b + 2) and otherwise through the symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
"""

from __future__ import annotations

import math

__all__ = ["regularized_beta", "t_cdf"]

_EPS = 1e-15
_TINY = 1e-300


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (without its prefactor), modified Lentz."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function, for a, b > 0 and 0 <= x <= 1.

    >>> round(regularized_beta(2.0, 3.0, 0.4), 12)  # 1 - (1 - x)^4 - 4 x (1 - x)^3 = 0.5248
    0.5248
    """
    if not (a > 0 and b > 0):
        raise ValueError("a and b must be positive")
    if not 0.0 <= x <= 1.0:
        raise ValueError("x must lie in [0, 1]")
    if x in (0.0, 1.0):
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` > 0 degrees of freedom; t may be +-inf.

    >>> round(t_cdf(-1.0, 1), 12)  # the Cauchy distribution: 1/4
    0.25
    """
    if not df > 0:
        raise ValueError("degrees of freedom must be positive")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0 if t < 0 else 1.0
    tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t < 0 else 1.0 - tail

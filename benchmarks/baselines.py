"""Tuned numpy versions of the mechanics the numba kernels simulate.

These are what a careful user would write instead of mathhammer, tuned as
``/work/shared/reference/performance.md`` §2 recommends for numpy: int8 dice
(numpy then takes 4 dice from each 32-bit draw), dice-major ``(k, batch)``
arrays (reductions run over contiguous rows), and batches of 2^16 trials so the
working set stays in L2. Each returns the same tally the kernel does (a
histogram or counters), never per-trial arrays, and is checked against an exact
value in :func:`self_check` so a fast but wrong baseline cannot flatter anyone.

Rules: WM-A1..A3 (attack roll, all 1s miss, all 6s hit), WM-D1 (damage),
WM-G1..G4 (grid marking, overflow with wrap, crippled systems, crippled M sets
DEF 7); the Fantasy chain is to-hit / to-wound / armour save on fixed targets.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

BATCH = 1 << 16


def _batches(n_trials: int, batch: int = BATCH):
    done = 0
    while done < n_trials:
        size = min(batch, n_trials - done)
        yield size
        done += size


# ---------------------------------------------------------------- dice roll


def roll_2d6_numpy(n_trials: int, rng: np.random.Generator) -> np.ndarray:
    """Histogram of 2D6 totals (index = total - 2), int8 dice in (2, batch) arrays."""
    hist = np.zeros(11, dtype=np.int64)
    for size in _batches(n_trials):
        dice = rng.integers(1, 7, size=(2, size), dtype=np.int8)
        total = dice[0] + dice[1]  # ≤ 12: no int8 overflow
        hist += np.bincount(total, minlength=13)[2:]
    return hist


# ---------------------------------------------------------------- Warmachine chain


@dataclass(frozen=True)
class AttackSpec:
    """One Warmachine attack: k attack dice + stat vs DEF, k damage dice + power - ARM."""

    stat: int = 6
    defense: int = 13
    power: int = 12
    armor: int = 18
    attack_dice: int = 3  # boosted
    damage_dice: int = 3  # boosted


def _attack_hits(dice: np.ndarray, stat: int, defense) -> np.ndarray:
    """WM-A1..A3 on int8 dice of shape (k, batch): bool hits."""
    k = dice.shape[0]
    total = dice.sum(axis=0, dtype=np.int16)
    lo = dice.min(axis=0)
    hi = dice.max(axis=0)
    hit = total + stat >= defense
    if k >= 2:
        hit |= lo == 6  # WM-A3: all sixes hit
    return hit & (hi > 1)  # WM-A2: all ones miss


def wm_chain_numpy(n_trials: int, spec: AttackSpec, rng: np.random.Generator) -> np.ndarray:
    """Histogram of damage dealt by one attack (index = damage, 0 on a miss)."""
    top = max(0, 6 * spec.damage_dice + spec.power - spec.armor)
    hist = np.zeros(top + 1, dtype=np.int64)
    offset = spec.power - spec.armor
    for size in _batches(n_trials):
        att = rng.integers(1, 7, size=(spec.attack_dice, size), dtype=np.int8)
        hit = _attack_hits(att, spec.stat, spec.defense)
        dmg = rng.integers(1, 7, size=(spec.damage_dice, size), dtype=np.int8)
        dealt = np.maximum(dmg.sum(axis=0, dtype=np.int16) + offset, 0) * hit
        hist += np.bincount(dealt, minlength=top + 1)
    return hist


def wm_chain_exact_mean(spec: AttackSpec) -> tuple[float, float]:
    """(P(hit), E[damage]) by enumerating every face (reference for the self-check)."""
    hits = 0
    n = 0
    for faces in product(range(1, 7), repeat=spec.attack_dice):
        n += 1
        total = sum(faces) + spec.stat
        all_six = spec.attack_dice >= 2 and min(faces) == 6
        hits += (total >= spec.defense or all_six) and max(faces) > 1
    p_hit = hits / n
    dmg = [max(0, sum(f) + spec.power - spec.armor)
           for f in product(range(1, 7), repeat=spec.damage_dice)]
    return p_hit, p_hit * sum(dmg) / len(dmg)


# ---------------------------------------------------------------- Fantasy chain


@dataclass(frozen=True)
class FantasySpec:
    """Every attack rolls to hit, to wound and (unless hit and wounded) the save."""

    attacks: int = 20
    hit_on: int = 4
    wound_on: int = 3
    save_on: int = 5  # the save succeeds on this or more


def fantasy_chain_numpy(n_trials: int, spec: FantasySpec, rng: np.random.Generator) -> np.ndarray:
    """Histogram of unsaved wounds; all 3 × attacks dice rolled branch-free per batch."""
    a = spec.attacks
    hist = np.zeros(a + 1, dtype=np.int64)
    for size in _batches(n_trials, 1 << 15):  # 60 rows × 32k int8 = 2 MB: L2-sized
        dice = rng.integers(1, 7, size=(3 * a, size), dtype=np.int8)
        unsaved = (dice[:a] >= spec.hit_on) & (dice[a:2 * a] >= spec.wound_on)
        unsaved &= dice[2 * a:] < spec.save_on
        hist += np.bincount(unsaved.sum(axis=0, dtype=np.int8), minlength=a + 1)
    return hist


def fantasy_p_unsaved(spec: FantasySpec) -> float:
    return (7 - spec.hit_on) / 6 * (7 - spec.wound_on) / 6 * (spec.save_on - 1) / 6


# ---------------------------------------------------------------- warjack grid

#: issue 3's example grid (Mk II heavy pattern): six columns, top to bottom, '-' = hull
EXAMPLE_GRID = ("--L", "--LLM", "---MM", "---CC", "--RRC", "--R")


@dataclass(frozen=True)
class GridSpec:
    # a Juggernaut's axe (MAT 7, P+S 18) into an Ironclad-like DEF 12 / ARM 20, boosted
    attack: AttackSpec = AttackSpec(stat=7, defense=12, power=18, armor=20)
    attacks: int = 3
    columns: tuple[str, ...] = EXAMPLE_GRID
    crippled_defense: int = 7  # WM-A7: DEF 7 once M is crippled


def grid_sequence_numpy(n_trials: int, spec: GridSpec, rng: np.random.Generator) -> dict:
    """Counters of a 3-attack sequence into a warjack grid, vectorised over trials.

    A column's state is its number of marked boxes (boxes fill top-down, WM-G2),
    so marking ``d`` points from column c is six vectorised steps: take what
    fits in c, carry the rest to c+1 (wrapping). A system is crippled when every
    column holds at least as many marks as the depth of its lowest box there.
    """
    cap = np.array([len(col) for col in spec.columns], dtype=np.int16)
    letters = sorted({ch for col in spec.columns for ch in col if ch != "-"})
    need = np.zeros((len(letters), 6), dtype=np.int16)
    for s, letter in enumerate(letters):
        for c, col in enumerate(spec.columns):
            if letter in col:
                need[s, c] = col.rindex(letter) + 1
    m_index = letters.index("M") if "M" in letters else None
    a = spec.attack
    crippled = np.zeros(len(letters), dtype=np.int64)
    destroyed = 0
    marked_total = 0
    for size in _batches(n_trials):
        fill = np.zeros((6, size), dtype=np.int16)
        lanes = np.arange(size)
        for _ in range(spec.attacks):
            defense = a.defense
            if m_index is not None:
                m_crippled = (fill >= need[m_index][:, None]).all(axis=0)
                defense = np.where(m_crippled, spec.crippled_defense, a.defense)
            att = rng.integers(1, 7, size=(a.attack_dice, size), dtype=np.int8)
            hit = _attack_hits(att, a.stat, defense)
            dmg = rng.integers(1, 7, size=(a.damage_dice + 1, size), dtype=np.int8)
            left = np.maximum(dmg[:-1].sum(axis=0, dtype=np.int16) + (a.power - a.armor), 0) * hit
            column = dmg[-1].astype(np.intp) - 1  # WM-G2: d6 for the column
            for step in range(6):
                c = (column + step) % 6
                room = cap[c] - fill[c, lanes]
                take = np.minimum(left, room)
                fill[c, lanes] += take
                left = left - take
        marked = fill.sum(axis=0)
        marked_total += int(marked.sum())
        destroyed += int((marked == cap.sum()).sum())
        for s in range(len(letters)):
            crippled[s] += int((fill >= need[s][:, None]).all(axis=0).sum())
    return {"destroyed": destroyed, "crippled": dict(zip(letters, crippled.tolist())),
            "marked_total": marked_total}


# ---------------------------------------------------------------- self-check


def self_check(rng: np.random.Generator, n: int = 400_000) -> list[str]:
    """Each baseline against its exact value (5 standard errors); returns failures."""
    failures = []
    hist = roll_2d6_numpy(n, rng)
    mean = (hist * np.arange(2, 13)).sum() / n
    if abs(mean - 7.0) > 5 * np.sqrt(35 / 6 / n):
        failures.append(f"2D6 mean {mean:.4f} vs 7")
    spec = AttackSpec()
    p_hit, e_dmg = wm_chain_exact_mean(spec)
    hist = wm_chain_numpy(n, spec, rng)
    values = np.arange(hist.size)
    got = (hist * values).sum() / n
    sd = np.sqrt(max((hist * values**2).sum() / n - got**2, 1e-12))
    if abs(got - e_dmg) > 5 * sd / np.sqrt(n):
        failures.append(f"WM chain mean damage {got:.4f} vs exact {e_dmg:.4f}")
    fspec = FantasySpec()
    p = fantasy_p_unsaved(fspec)
    hist = fantasy_chain_numpy(n, fspec, rng)
    got = (hist * np.arange(hist.size)).sum() / n
    if abs(got - fspec.attacks * p) > 5 * np.sqrt(fspec.attacks * p * (1 - p) / n):
        failures.append(f"Fantasy mean wounds {got:.4f} vs exact {fspec.attacks * p:.4f}")
    return failures


def grid_sequence_exact_python(spec: GridSpec) -> dict:
    """Plain-Python dictionary DP over column-fill states: the exact baseline for grids.

    State = marked boxes per column (boxes fill top-down, WM-G2); every attack maps
    each state through miss / hit-with-damage-d / column roll. Returns P(destroyed),
    P(crippled X) and E[boxes marked].
    """
    a = spec.attack
    cap = tuple(len(col) for col in spec.columns)
    letters = sorted({ch for col in spec.columns for ch in col if ch != "-"})
    need = {x: tuple(col.rindex(x) + 1 if x in col else 0 for col in spec.columns)
            for x in letters}

    def crippled(state, letter):
        return all(f >= n for f, n in zip(state, need[letter]))

    def p_hit(defense):
        hits = 0
        for faces in product(range(1, 7), repeat=a.attack_dice):
            all_six = a.attack_dice >= 2 and min(faces) == 6
            hits += (sum(faces) + a.stat >= defense or all_six) and max(faces) > 1
        return hits / 6**a.attack_dice

    dmg_pmf: dict[int, float] = {}
    for faces in product(range(1, 7), repeat=a.damage_dice):
        d = max(0, sum(faces) + a.power - a.armor)
        dmg_pmf[d] = dmg_pmf.get(d, 0.0) + 6.0**-a.damage_dice
    hit_normal, hit_crippled = p_hit(a.defense), p_hit(spec.crippled_defense)

    def mark(state, column, damage):
        fill = list(state)
        for step in range(6):
            c = (column + step) % 6
            take = min(damage, cap[c] - fill[c])
            fill[c] += take
            damage -= take
        return tuple(fill)

    states = {(0,) * 6: 1.0}
    for _ in range(spec.attacks):
        nxt: dict[tuple, float] = {}
        for state, p in states.items():
            ph = hit_crippled if "M" in need and crippled(state, "M") else hit_normal
            nxt[state] = nxt.get(state, 0.0) + p * (1 - ph)
            for d, pd in dmg_pmf.items():
                for column in range(6):
                    new = mark(state, column, d) if d else state
                    nxt[new] = nxt.get(new, 0.0) + p * ph * pd / 6
        states = nxt
    total = sum(cap)
    return {
        "destroyed": sum(p for s, p in states.items() if sum(s) == total),
        "crippled": {x: sum(p for s, p in states.items() if crippled(s, x)) for x in letters},
        "mean_marked": sum(p * sum(s) for s, p in states.items()),
    }

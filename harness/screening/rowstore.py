"""An append-only columnar table with indexes, for live screening's in-memory state.

Appending a few dozen rows and taking the rows of a few workers or items must cost about the
same whether the table holds a thousand rows or a million: columns are numpy arrays grown by
doubling, and each index maps a key (worker, item, unit) to the positions of its rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd


class RowStore:
    """Rows with fixed ``columns``, indexed by the values of ``index_on`` columns."""

    def __init__(self, columns: Sequence[str], dtypes: dict[str, str], index_on: Sequence[str]):
        self.columns = list(columns)
        self.size = 0
        self._data: dict[str, np.ndarray] = {
            c: np.empty(64, dtype=dtypes.get(c, object)) for c in self.columns
        }
        self._index: dict[str, defaultdict[object, list[int]]] = {
            c: defaultdict(list) for c in index_on
        }

    def append(self, frame: pd.DataFrame) -> None:
        """Add ``frame``'s rows (it must have every column)."""
        n = len(frame)
        if n == 0:
            return
        needed = self.size + n
        capacity = len(next(iter(self._data.values())))
        if needed > capacity:
            while capacity < needed:
                capacity *= 2
            for name, array in self._data.items():
                grown = np.empty(capacity, dtype=array.dtype)
                grown[: self.size] = array[: self.size]
                self._data[name] = grown
        for name in self.columns:
            self._data[name][self.size : needed] = frame[name].to_numpy()
        positions = range(self.size, needed)
        for name, index in self._index.items():
            for key, position in zip(frame[name].to_numpy(), positions, strict=True):
                index[key].append(position)
        self.size = needed

    def positions(self, column: str, keys: Iterable[object]) -> npt.NDArray[np.int64]:
        """Positions of the rows whose ``column`` is one of ``keys``, in insertion order."""
        index = self._index[column]
        found = [index[k] for k in keys if k in index]
        if not found:
            return np.empty(0, dtype=np.int64)
        return np.sort(np.concatenate([np.asarray(p, dtype=np.int64) for p in found]))

    def take(self, positions: np.ndarray) -> pd.DataFrame:
        """The rows at ``positions`` as a DataFrame."""
        return pd.DataFrame({c: self._data[c][positions] for c in self.columns})

    def values(self, column: str, by: str, keys: Iterable[object]) -> np.ndarray:
        """``column`` of the rows whose ``by`` is one of ``keys`` (no DataFrame built)."""
        return self._data[column][self.positions(by, keys)]

    def rows(self, column: str, keys: Iterable[object]) -> pd.DataFrame:
        """The rows whose ``column`` is one of ``keys``."""
        return self.take(self.positions(column, keys))


class Codes:
    """Small integer codes for names (workers, items), so that grouping works on integers."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._codes: dict[str, int] = {}

    def encode(self, values: Iterable[object]) -> np.ndarray:
        """The codes of ``values`` (as text), new names getting the next codes."""
        out = []
        for value in values:
            name = str(value)
            code = self._codes.get(name)
            if code is None:
                code = self._codes[name] = len(self.names)
                self.names.append(name)
            out.append(code)
        return np.asarray(out, dtype=np.int64)

    def decode(self, codes: Iterable[int]) -> list[str]:
        return [self.names[int(c)] for c in codes]

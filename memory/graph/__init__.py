"""The domain core of TokenMizer: plain Python on dataclasses, no Django import anywhere below here."""

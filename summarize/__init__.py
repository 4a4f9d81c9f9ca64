"""The summary flow: every quote a model's summary cites is checked against the contract."""

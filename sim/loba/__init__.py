"""Loba de Menos: the compiled game kernel (layout, moves, engine, batch kernel)."""

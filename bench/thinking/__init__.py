"""Only so that mypy tells this bot.py from bench/first_legal/bot.py (both are ``bot``)."""

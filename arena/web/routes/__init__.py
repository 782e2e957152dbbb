"""The web's routes, one router per area: the ladder, the bots, the matches (with their
games and logs), signing in and out, and the platform's status. Each page has its JSON
twin under ``/api/`` beside it."""

"""The ladder at work: submissions, workers that play scheduled matches, ratings kept in
schedule order. Joins the store (``arena.store``), the sandboxes and the referee
(``arena.play.tables``) and the ladder's pure logic (``arena.competition``)."""

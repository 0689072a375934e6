"""Game records: games played through the engine, their clocks, players, ratings, records,
remarks and watchers. It may import the core, the text layer, the mail layer and the engine."""

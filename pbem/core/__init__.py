"""The ground floor: the records, the database, the settings, the errors and the one clock.

It may import only the mail layer and the engine; everything else in pbem stands on it."""

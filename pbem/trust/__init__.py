"""Whom to believe: the tokens our mails carry, proof of receipt, the budget of replies.
It may import the core, the text layer and the mail layer; it knows no game rule."""

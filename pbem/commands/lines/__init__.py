"""What a line of a mail is: the command registry, the words of every language, the reader
that turns a mail into lines, and the small argument readers."""

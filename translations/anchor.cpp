// Anchor source for the translations resource library.

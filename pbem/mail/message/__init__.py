"""Mail as bytes and headers: reading what people and robots send, building what we send."""

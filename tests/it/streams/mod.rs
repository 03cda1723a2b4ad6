mod streams;

provider fk { probe lib(int); };

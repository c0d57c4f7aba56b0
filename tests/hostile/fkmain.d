provider fkmain { probe main(int); };

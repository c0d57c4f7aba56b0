/* expect: D_PROBE_BADNAME 3:8 */
provider shop {
	probe a_probe_name_that_is_longer_than_the_sixty_three_characters_of_dtrace();
};

/*
 * #pragma D attributes in its forms; the DOF provider attributes show them.
 * #pragma D attributes Internal/Internal/Unknown provider attrs args
 * (that one is inside a comment, and ignored)
 */
#pragma D attributes Private/Evolving/CPU provider attrs provider

provider attrs {
	probe a(int);
};

provider dflt {
	probe b(int);
};

#pragma D attributes Evolving/Evolving/ISA provider attrs args
#pragma  D  attributes   stable/standard/PLATFORM   provider  attrs  module
#pragma D attributes Evolving provider attrs function
#pragma D attributes Obsolete/External provider attrs name
#pragma D depends_on library net.d
#pragma D option quiet
#pragma D frobnicate

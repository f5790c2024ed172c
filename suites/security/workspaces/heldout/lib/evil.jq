include "passwd" {search: "/etc"};
def run: .;

def g: "INSIDE-MODULE";

region = "a"
region = "b"
client {
  node_class = "x"
  node_class = "y"
}

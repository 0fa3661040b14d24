client {
  enabled = true }
server { enabled = true
  bootstrap_expect = 1 }

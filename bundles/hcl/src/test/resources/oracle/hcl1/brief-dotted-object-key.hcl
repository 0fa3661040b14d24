client {
  options = { driver.raw_exec.enable = "1", "docker.privileged.enabled" = "true" }
}

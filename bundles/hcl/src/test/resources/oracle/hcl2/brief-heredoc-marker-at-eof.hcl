a = <<EOT
x
EOT
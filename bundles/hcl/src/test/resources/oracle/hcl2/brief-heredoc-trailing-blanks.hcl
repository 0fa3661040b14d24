a = <<EOT
x
EOT  

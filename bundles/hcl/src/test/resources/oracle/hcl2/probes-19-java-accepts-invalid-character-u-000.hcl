a=<<EOT
y
EOT
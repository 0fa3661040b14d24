a=<<EOT
EOT 

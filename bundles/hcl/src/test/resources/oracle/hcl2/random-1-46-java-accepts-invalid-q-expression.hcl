h{
p{
a{
p={for v in[]:""=>([])}
}
}
}